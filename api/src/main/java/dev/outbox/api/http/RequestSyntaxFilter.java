package dev.outbox.api.http;

import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.MultivaluedMap;
import java.util.List;
import java.util.Map;

/**
 * Refuses, as a problem naming what is wrong, requests Jersey would otherwise answer with a bare
 * 400 or let through to fail in the database:
 *
 * <ul>
 *   <li>a {@code Content-Type} or {@code Accept} header that is not a media type (Jersey parses
 *       them only while matching, and answers a parse failure with an empty 400);
 *   <li>a path or query parameter holding text PostgreSQL cannot store ({@link StorableValues}).
 * </ul>
 *
 * <p>It runs after authentication, so an {@code /ops} caller without a valid token learns nothing
 * but 401. Framing (several {@code Content-Length}s, one beside chunked) is refused earlier, by
 * {@link HeadErrorCodec}, before any application code sees the request.
 */
@PreMatching
@Priority(Priorities.HEADER_DECORATOR)
public final class RequestSyntaxFilter implements ContainerRequestFilter {

    @Override
    public void filter(ContainerRequestContext request) {
        try {
            request.getMediaType();
        } catch (RuntimeException e) {
            throw ApiException.badRequest(
                    "invalid_header", "Content-Type is not a media type such as application/json");
        }
        try {
            request.getAcceptableMediaTypes();
        } catch (RuntimeException e) {
            throw ApiException.badRequest(
                    "invalid_header", "Accept is not a list of media types such as application/json");
        }
        String pathDefect = StorableValues.textDefect(request.getUriInfo().getPath(true));
        if (pathDefect != null) {
            throw ApiException.badRequest("invalid_path", "the path " + pathDefect);
        }
        MultivaluedMap<String, String> query = request.getUriInfo().getQueryParameters(true);
        for (Map.Entry<String, List<String>> parameter : query.entrySet()) {
            String nameDefect = StorableValues.textDefect(parameter.getKey());
            if (nameDefect != null) {
                throw ApiException.badRequest("invalid_query", "a query parameter name " + nameDefect);
            }
            for (String value : parameter.getValue()) {
                String defect = StorableValues.textDefect(value);
                if (defect != null) {
                    throw ApiException.badRequest(
                            "invalid_query", "query parameter " + shown(parameter.getKey()) + " " + defect);
                }
            }
        }
    }

    /** A parameter name as a client may read it back: known-looking names only. */
    private static String shown(String name) {
        return name.matches("[A-Za-z0-9_.-]{1,64}") ? name : "(unnamed)";
    }
}
