package dev.outbox.api.ops;

import dev.outbox.api.http.ApiException;
import dev.outbox.api.http.Problem;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.regex.Pattern;

/**
 * Guards every path under {@code /ops}, whatever the rest of the API allows: a bearer token is
 * required, compared in constant time (both sides hashed first, so neither content nor length
 * leaks through timing); reads need either token, writes the operator token. Tokens are never
 * logged or echoed. The caller may name itself in {@code X-Operator} for the audit trail.
 */
@Priority(Priorities.AUTHENTICATION)
public final class OpsAuthFilter implements ContainerRequestFilter {
    public static final String OPERATOR_HEADER = "X-Operator";
    private static final Pattern ACTOR = Pattern.compile("[A-Za-z0-9._@+-]{1,64}");

    private final byte[] operatorDigest;
    private final byte[] readDigest;

    public OpsAuthFilter(OpsConfig config) {
        this.operatorDigest = config.operatorToken() == null ? null : digest(config.operatorToken());
        this.readDigest = config.readToken() == null ? null : digest(config.readToken());
    }

    @Override
    public void filter(ContainerRequestContext request) {
        String path = request.getUriInfo().getPath();
        if (!(path.equals("ops") || path.startsWith("ops/") || path.startsWith("/ops"))) {
            return;
        }
        boolean write = !"GET".equals(request.getMethod()) && !"HEAD".equals(request.getMethod());
        if (operatorDigest == null && (write || readDigest == null)) {
            throw new ApiException(Problem.of(
                    503,
                    "ops_disabled",
                    "Operator endpoints are disabled",
                    "set OUTBOX_OPS_TOKEN (and optionally OUTBOX_OPS_READ_TOKEN) to enable them"));
        }
        String header = request.getHeaderString(HttpHeaders.AUTHORIZATION);
        OpsPrincipal.Role role = null;
        if (header != null && header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            byte[] presented = digest(header.substring(7).trim());
            // compare against both so the time taken does not say which token (if any) matched
            boolean operator = operatorDigest != null && MessageDigest.isEqual(presented, operatorDigest);
            boolean reader = readDigest != null && MessageDigest.isEqual(presented, readDigest);
            role = operator ? OpsPrincipal.Role.OPERATOR : reader ? OpsPrincipal.Role.READ_ONLY : null;
        }
        if (role == null) {
            throw new ApiException(
                    Problem.of(
                            401,
                            "unauthorized",
                            "Unauthorized",
                            "operator endpoints need Authorization: Bearer <token>"),
                    "Bearer realm=\"outbox-ops\"");
        }
        if (write && role != OpsPrincipal.Role.OPERATOR) {
            throw new ApiException(Problem.of(
                    403,
                    "forbidden",
                    "Forbidden",
                    "the read-only token cannot change anything; use the operator token"));
        }
        String actor = request.getHeaderString(OPERATOR_HEADER);
        if (actor != null && !ACTOR.matcher(actor).matches()) {
            throw new ApiException(Problem.of(
                    400,
                    "validation_failed",
                    "Invalid request",
                    OPERATOR_HEADER + " must be 1-64 characters of letters, digits and ._@+-"));
        }
        request.setProperty(OpsPrincipal.PROPERTY, new OpsPrincipal(role, actor == null ? role.label() : actor));
    }

    private static byte[] digest(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
