package dev.outbox.api.http;

import java.io.IOException;

/**
 * The request body passed the configured limit ({@code OUTBOX_HTTP_MAX_BODY}): answered 413. An
 * {@link IOException} because it is thrown from the body's stream, through whatever reads it
 * (Jackson passes I/O failures through unwrapped).
 */
public final class RequestBodyTooLargeException extends IOException {
    private static final long serialVersionUID = 1L;
    private final long limit;

    public RequestBodyTooLargeException(long limit) {
        super("request body over " + limit + " bytes");
        this.limit = limit;
    }

    public long limit() {
        return limit;
    }
}
