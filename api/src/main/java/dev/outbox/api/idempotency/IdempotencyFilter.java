package dev.outbox.api.idempotency;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.outbox.api.http.BoundedEntityStream;
import dev.outbox.api.http.RequestMetadata;
import dev.outbox.kernel.json.Json;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * For a POST with an {@code Idempotency-Key}: reads the body once, never more than the body limit,
 * fingerprints the request as SHA-256 of method, path and the body in canonical JSON (keys sorted,
 * so formatting and key order do not make two equal requests differ), and puts the body back for
 * the resource.
 */
@Priority(Priorities.USER)
public final class IdempotencyFilter implements ContainerRequestFilter {
    private static final ObjectMapper CANONICAL =
            Json.mapper().copy().enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS);

    private final long maxBody;

    public IdempotencyFilter(long maxBody) {
        this.maxBody = maxBody;
    }

    @Override
    public void filter(ContainerRequestContext request) {
        if (!"POST".equals(request.getMethod())) {
            return;
        }
        RequestMetadata metadata = RequestMetadata.of(request);
        if (metadata.idempotencyKey() == null) {
            return;
        }
        byte[] body;
        try {
            body = BoundedEntityStream.readAll(request.getEntityStream(), maxBody);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        request.setEntityStream(new ByteArrayInputStream(body));
        String scope = metadata.tenantId() == null ? "" : metadata.tenantId();
        request.setProperty(
                IdempotencyRequest.PROPERTY,
                new IdempotencyRequest(
                        scope,
                        metadata.idempotencyKey(),
                        fingerprint(request.getMethod(), request.getUriInfo().getPath(), body)));
    }

    static String fingerprint(String method, String path, byte[] body) {
        byte[] canonical;
        try {
            canonical = CANONICAL.writeValueAsBytes(CANONICAL.readValue(body, Object.class));
        } catch (IOException notJson) {
            canonical = body; // the request will be refused as malformed anyway
        }
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update((method + " /" + path.replaceFirst("^/", "") + "\n").getBytes(StandardCharsets.UTF_8));
            sha.update(canonical);
            return HexFormat.of().formatHex(sha.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
