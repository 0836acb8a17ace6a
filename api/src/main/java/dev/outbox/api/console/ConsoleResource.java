package dev.outbox.api.console;

import jakarta.inject.Singleton;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * {@code GET /console}: the operator console, one page of plain HTML, CSS and JavaScript from this
 * jar, on the {@code /ops} API and its tokens. The page holds the token in session storage and
 * sends it as a bearer header; nothing here reads or sets a cookie. The Content-Security-Policy
 * allows this origin's own script and style files and nothing else: no inline script, no inline
 * style, no other origin, no frames, no forms posted anywhere.
 */
@Path("/")
@Singleton
public final class ConsoleResource {
    static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self';"
            + " img-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

    /** The files under /console/; nothing else from the classpath is served. */
    private static final Map<String, String> FILES =
            Map.of("console.js", "application/javascript; charset=utf-8", "console.css", "text/css; charset=utf-8");

    @GET
    @Path("console")
    @Produces(MediaType.TEXT_HTML)
    public Response page() {
        return secured(Response.ok(read("console.html"), "text/html; charset=utf-8"))
                .header("Cache-Control", "no-store")
                .build();
    }

    @GET
    @Path("console/{file}")
    public Response file(@PathParam("file") String file) {
        String type = FILES.get(file);
        if (type == null) {
            throw new NotFoundException();
        }
        return secured(Response.ok(read(file), type))
                .header("Cache-Control", "no-cache")
                .build();
    }

    private static Response.ResponseBuilder secured(Response.ResponseBuilder r) {
        return r.header("Content-Security-Policy", CONTENT_SECURITY_POLICY)
                .header("X-Content-Type-Options", "nosniff")
                .header("Referrer-Policy", "no-referrer")
                .header("X-Frame-Options", "DENY");
    }

    private static String read(String name) {
        try (InputStream in = ConsoleResource.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " is missing from the api jar");
            }
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
