package dev.outbox.api.ops;

import dev.outbox.api.http.ApiException;
import dev.outbox.api.http.Problem;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
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
 *
 * <p>It runs before matching, so a caller without a valid token gets 401 whatever else is wrong
 * with the request: Jersey answers 404, 405 and 415 while matching, which would otherwise tell an
 * unauthenticated caller which paths, methods and media types exist.
 */
@PreMatching
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
        if (!underOps(request.getUriInfo().getPath(true))) {
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
            byte[] presented = digest(withoutSpaces(header.substring(7)));
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

    /**
     * The token without the spaces and tabs HTTP allows around it, and nothing else removed: a
     * token followed by a NUL or another control character is not the token.
     */
    private static String withoutSpaces(String value) {
        int start = 0;
        int end = value.length();
        while (start < end && (value.charAt(start) == ' ' || value.charAt(start) == '\t')) {
            start++;
        }
        while (end > start && (value.charAt(end - 1) == ' ' || value.charAt(end - 1) == '\t')) {
            end--;
        }
        return value.substring(start, end);
    }

    /** Whether the path, with its dot segments resolved as a client library would, is under /ops. */
    static boolean underOps(String path) {
        java.util.Deque<String> segments = new java.util.ArrayDeque<>();
        for (String segment : path.split("/", -1)) {
            if (segment.isEmpty() || segment.equals(".")) {
                continue;
            }
            if (segment.equals("..")) {
                segments.pollLast();
            } else {
                segments.addLast(segment);
            }
        }
        return "ops".equals(segments.peekFirst());
    }

    private static byte[] digest(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
