package dev.outbox.api.idempotency;

import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.net.URI;

/**
 * A write's response as committed with it: what the first request got and every retry with the
 * same key gets again, byte for byte.
 */
public record StoredResponse(int status, String body, String location, boolean replayed) {
    public static final String REPLAYED_HEADER = "Idempotent-Replayed";

    public static StoredResponse of(int status, String body, String location) {
        return new StoredResponse(status, body, location, false);
    }

    public Response toResponse() {
        Response.ResponseBuilder b =
                Response.status(status).type(MediaType.APPLICATION_JSON_TYPE).entity(body);
        if (location != null) {
            b.location(URI.create(location));
        }
        if (replayed) {
            b.header(REPLAYED_HEADER, "true");
        }
        return b.build();
    }
}
