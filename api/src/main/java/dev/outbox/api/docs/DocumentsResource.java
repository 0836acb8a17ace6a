package dev.outbox.api.docs;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.outbox.api.http.BundledText;
import dev.outbox.kernel.contract.MessageContracts;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
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
import java.util.Properties;

/**
 * The published documents: {@code GET /asyncapi.json} (generated from the message contracts),
 * {@code GET /openapi.json} (the HTTP API, kept honest by {@code OpenApiContractIT}) and
 * {@code GET /docs}, a page for people: Swagger UI (from its WebJar) over the OpenAPI document
 * and a list of the messages. Public like the order API: they describe the contract, not data.
 * The page allows scripts and data only from this origin.
 */
@Path("/")
public final class DocumentsResource {
    static final String CONTENT_SECURITY_POLICY = "default-src 'self'; script-src 'self'; connect-src 'self';"
            + " img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none';"
            + " form-action 'none'";
    private static final String SWAGGER_UI = "/META-INF/resources/webjars/swagger-ui/";

    /** The files under /docs/: ours and the two Swagger UI needs, nothing else from the classpath. */
    private static final Map<String, String> PAGE_FILES = Map.of(
            "docs.js", "application/javascript; charset=utf-8",
            "docs.css", "text/css; charset=utf-8",
            "swagger-ui-bundle.js", "application/javascript; charset=utf-8",
            "swagger-ui.css", "text/css; charset=utf-8");

    private final String asyncApi;
    private final String openApi;
    private final String swaggerUiVersion;

    public DocumentsResource() {
        this(MessageContracts.onClasspath());
    }

    DocumentsResource(MessageContracts contracts) {
        String version = properties(DocumentsResource.class, "build.properties").getProperty("version");
        try {
            ObjectNode doc = AsyncApiDocument.generate(contracts, version);
            this.asyncApi = new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(doc);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.openApi = OpenApiDocument.generate(version);
        this.swaggerUiVersion = properties(
                        DocumentsResource.class, "/META-INF/maven/org.webjars/swagger-ui/pom.properties")
                .getProperty("version");
    }

    @Operation(
            operationId = "asyncApi",
            tags = "documents",
            summary = "AsyncAPI 3.0 document of the published messages",
            responses = {@ApiResponse(responseCode = "200", description = "Generated from the message contracts.")})
    @GET
    @Path("asyncapi.json")
    @Produces(MediaType.APPLICATION_JSON)
    public String asyncApi() {
        return asyncApi;
    }

    @Operation(
            operationId = "openApi",
            tags = "documents",
            summary = "This document",
            responses = {@ApiResponse(responseCode = "200", description = "OpenAPI 3.1.")})
    @GET
    @Path("openapi.json")
    @Produces(MediaType.APPLICATION_JSON)
    public String openApi() {
        return openApi;
    }

    @Operation(
            operationId = "docs",
            tags = "documents",
            summary = "The documents as a page for people",
            responses = {@ApiResponse(responseCode = "200", description = "HTML.")})
    @GET
    @Path("docs")
    @Produces(MediaType.TEXT_HTML)
    public Response page() {
        return Response.ok(BundledText.read(DocumentsResource.class, "docs.html"), "text/html; charset=utf-8")
                .header("Content-Security-Policy", CONTENT_SECURITY_POLICY)
                .header("X-Content-Type-Options", "nosniff")
                .build();
    }

    @Operation(
            operationId = "docsFile",
            tags = "documents",
            summary = "The page's scripts and styles (its own, and Swagger UI's from the WebJar)")
    @GET
    @Path("docs/{file}")
    @Answers(Answers.Shared.PAGE_FILE)
    public Response pageFile(
            @Parameter(
                            example = "docs.js",
                            schema =
                                    @Schema(
                                            type = "string",
                                            allowableValues = {
                                                "docs.js",
                                                "docs.css",
                                                "swagger-ui-bundle.js",
                                                "swagger-ui.css"
                                            }))
                    @PathParam("file")
                    String file) {
        String type = PAGE_FILES.get(file);
        if (type == null) {
            throw new NotFoundException();
        }
        String resource = file.startsWith("swagger-ui") ? SWAGGER_UI + swaggerUiVersion + "/" + file : file;
        InputStream in = DocumentsResource.class.getResourceAsStream(resource);
        if (in == null) {
            throw new IllegalStateException(resource + " is missing from the classpath");
        }
        return Response.ok(in, type)
                .header("Cache-Control", "max-age=3600")
                .header("X-Content-Type-Options", "nosniff")
                .build();
    }

    private static Properties properties(Class<?> base, String resource) {
        Properties p = new Properties();
        try (InputStream in = base.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is missing from the classpath");
            }
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return p;
    }
}
