package dev.outbox.api.console;

import dev.outbox.api.docs.Answers;
import dev.outbox.api.http.BundledText;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import jakarta.inject.Singleton;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
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

    /** The files under /console/ and their types; nothing else from the classpath is served. */
    private static final Map<String, String> TYPES =
            Map.of("console.js", "application/javascript; charset=utf-8", "console.css", "text/css; charset=utf-8");

    /** Read once, as the API starts: a jar without them fails at start, not at the first operator. */
    private final String page = BundledText.read(ConsoleResource.class, "console.html");

    private final Map<String, String> files = Map.of(
            "console.js", BundledText.read(ConsoleResource.class, "console.js"),
            "console.css", BundledText.read(ConsoleResource.class, "console.css"));

    @Operation(
            operationId = "console",
            tags = "console",
            summary =
                    "The operator console: overview, search, row detail with repair actions, audit log (a page for people, on the /ops API and its tokens)",
            responses = {@ApiResponse(responseCode = "200", description = "HTML.")})
    @GET
    @Path("console")
    @Produces(MediaType.TEXT_HTML)
    public Response page() {
        return secured(Response.ok(page, "text/html; charset=utf-8"))
                .header("Cache-Control", "no-store")
                .build();
    }

    @Operation(operationId = "consoleFile", tags = "console", summary = "The console's script and style")
    @GET
    @Path("console/{file}")
    @Answers(Answers.Shared.PAGE_FILE)
    public Response file(
            @Parameter(
                            example = "console.js",
                            schema =
                                    @Schema(
                                            type = "string",
                                            allowableValues = {"console.js", "console.css"}))
                    @PathParam("file")
                    String file) {
        String type = TYPES.get(file);
        if (type == null) {
            throw new NotFoundException();
        }
        return secured(Response.ok(files.get(file), type))
                .header("Cache-Control", "no-cache")
                .build();
    }

    private static Response.ResponseBuilder secured(Response.ResponseBuilder r) {
        return r.header("Content-Security-Policy", CONTENT_SECURITY_POLICY)
                .header("X-Content-Type-Options", "nosniff")
                .header("Referrer-Policy", "no-referrer")
                .header("X-Frame-Options", "DENY");
    }
}
