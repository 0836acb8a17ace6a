package dev.outbox.api.http;

import java.io.IOException;

/**
 * The client's body could not be read to its end: it stopped before its {@code Content-Length},
 * its chunked encoding was broken, or the connection went. The client's fault, answered 400 (if
 * anyone still listens) and never logged as a server error.
 */
public final class RequestBodyUnreadableException extends IOException {
    private static final long serialVersionUID = 1L;

    public RequestBodyUnreadableException(IOException cause) {
        super("request body unreadable", cause);
    }
}
