package dev.outbox.api.docs;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.outbox.kernel.contract.MessageContracts;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The published documents: {@code GET /asyncapi.json}. Public like the order API (no token): they
 * describe the contract, not data. Generated once at start-up, from the same contracts the write
 * path and the relay check against.
 */
@Path("/")
public final class DocumentsResource {
    private final String asyncApi;

    public DocumentsResource() {
        this(MessageContracts.onClasspath());
    }

    DocumentsResource(MessageContracts contracts) {
        try {
            ObjectNode doc = AsyncApiDocument.generate(contracts, buildVersion());
            this.asyncApi = new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(doc);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @GET
    @Path("asyncapi.json")
    @Produces(MediaType.APPLICATION_JSON)
    public String asyncApi() {
        return asyncApi;
    }

    /** The project version, written into build.properties by the build. */
    static String buildVersion() {
        Properties p = new Properties();
        try (InputStream in = DocumentsResource.class.getResourceAsStream("build.properties")) {
            if (in == null) {
                throw new IllegalStateException("build.properties is missing from the api jar");
            }
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return p.getProperty("version");
    }
}
