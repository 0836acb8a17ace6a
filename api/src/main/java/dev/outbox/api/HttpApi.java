package dev.outbox.api;

import com.google.inject.Injector;
import dev.outbox.api.docs.OpenApiDocument;
import dev.outbox.api.http.BodyLimitFilter;
import dev.outbox.api.http.GrizzlyProblems;
import dev.outbox.api.http.HeadErrorCodec;
import dev.outbox.api.http.HttpSpans;
import dev.outbox.api.http.JsonConfig;
import dev.outbox.api.http.ProblemExceptionMapper;
import dev.outbox.api.http.ProblemResponseFilter;
import dev.outbox.api.http.RequestMetadataFilter;
import dev.outbox.api.http.RequestSyntaxFilter;
import dev.outbox.api.idempotency.IdempotencyFilter;
import dev.outbox.api.ops.OpsAuthFilter;
import dev.outbox.api.ops.OpsConfig;
import dev.outbox.api.ops.OpsResource;
import dev.outbox.api.orders.OrderResource;
import io.opentelemetry.api.OpenTelemetry;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.glassfish.grizzly.http.server.HttpHandlerRegistration;
import org.glassfish.grizzly.http.server.HttpServer;
import org.glassfish.grizzly.http.server.NetworkListener;
import org.glassfish.grizzly.http.server.ServerConfiguration;
import org.glassfish.jersey.CommonProperties;
import org.glassfish.jersey.grizzly2.httpserver.GrizzlyHttpContainer;
import org.glassfish.jersey.grizzly2.httpserver.GrizzlyHttpServerFactory;
import org.glassfish.jersey.inject.hk2.AbstractBinder;
import org.glassfish.jersey.jackson.JacksonFeature;
import org.glassfish.jersey.server.ContainerFactory;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.server.ServerProperties;

/**
 * Jersey on Grizzly, with resources built by Guice (constructor injection, final fields).
 * Auto-discovery is off, so nothing joins the application unasked; Jackson comes without its own
 * exception mappers, which would echo parser text to clients.
 *
 * <p>Resources are registered by class and their Guice-built instances handed to Jersey by a
 * binder. Registering the instances themselves works too, but Jersey 4 then checks each one as
 * if it were a provider and logs "will be ignored" at WARN on every start, which an operator
 * rightly reads as a fault.
 */
public final class HttpApi {
    private HttpApi() {}

    /**
     * The largest request head (request line and headers) the API reads: Grizzly's own default,
     * named here because the README and /openapi.json promise 414/431 beyond it.
     */
    public static final int MAX_HEAD_BYTES = 8192;

    static ResourceConfig resourceConfig(Injector injector, ApiConfig config, OpsConfig ops, Object... extraResources) {
        ResourceConfig rc = new ResourceConfig();
        rc.property(CommonProperties.FEATURE_AUTO_DISCOVERY_DISABLE, true);
        rc.property(CommonProperties.JSON_PROCESSING_FEATURE_DISABLE, true);
        rc.property(CommonProperties.MOXY_JSON_FEATURE_DISABLE, true);
        rc.property(ServerProperties.WADL_FEATURE_DISABLE, true);
        rc.property(ServerProperties.BV_FEATURE_DISABLE, true);
        rc.property(ServerProperties.RESPONSE_SET_STATUS_OVER_SEND_ERROR, true);
        rc.register(JacksonFeature.withoutExceptionMappers());
        rc.register(injector.getInstance(JsonConfig.class));
        rc.register(ProblemExceptionMapper.class);
        // the edge, in order (pre-matching, by priority): correlation id, token, syntax, body limit
        rc.register(RequestMetadataFilter.class);
        rc.register(new OpsAuthFilter(ops));
        rc.register(RequestSyntaxFilter.class);
        rc.register(new BodyLimitFilter(config.maxBodyBytes()));
        rc.register(new IdempotencyFilter(config.maxBodyBytes()));
        rc.register(ProblemResponseFilter.class);
        rc.register(HttpSpans.Route.class);
        List<Object> resources = new ArrayList<>();
        resources.add(injector.getInstance(OrderResource.class));
        resources.add(injector.getInstance(OpsResource.class));
        resources.add(injector.getInstance(dev.outbox.api.ops.OpsActionsResource.class));
        resources.add(injector.getInstance(dev.outbox.api.ops.OpsBulkResource.class));
        resources.add(injector.getInstance(dev.outbox.api.ops.OpsRegistryResource.class));
        resources.add(injector.getInstance(dev.outbox.api.docs.DocumentsResource.class));
        resources.add(injector.getInstance(dev.outbox.api.console.ConsoleResource.class));
        resources.addAll(List.of(extraResources));
        for (Object resource : resources) {
            if (!OpenApiDocument.RESOURCES.contains(resource.getClass())) {
                // /openapi.json is generated from that list: an operation missing from it would be served undocumented
                throw new IllegalStateException(resource.getClass().getName() + " is not in OpenApiDocument.RESOURCES");
            }
            rc.register(resource.getClass());
        }
        rc.register(new BuiltResources(resources));
        return rc;
    }

    /**
     * Hands Jersey the resource instances built outside it. Jersey also binds every registered
     * resource class itself, as something it would construct; the higher rank makes the lookup
     * return the built instance whichever binding came first, so HK2 never constructs (or
     * field-injects) a resource.
     */
    private static final class BuiltResources extends AbstractBinder {
        private static final int ABOVE_JERSEY_OWN_BINDING = 100;

        private final List<Object> resources;

        BuiltResources(List<Object> resources) {
            this.resources = List.copyOf(resources);
        }

        @Override
        protected void configure() {
            for (Object resource : resources) {
                bindInstance(resource);
            }
        }

        private <T> void bindInstance(T resource) {
            @SuppressWarnings("unchecked")
            Class<T> type = (Class<T>) resource.getClass();
            bind(resource).to(type).ranked(ABOVE_JERSEY_OWN_BINDING);
        }
    }

    /**
     * Starts listening; the caller stops the server. Jersey runs behind
     * {@link GrizzlyProblems.RequestTargetGuard}, Grizzly's codec is {@link HeadErrorCodec} and its
     * error pages are problems, so every answer, whichever layer gives it, is problem+json and none
     * names the server.
     */
    public static HttpServer start(Injector injector, ApiConfig config, OpsConfig ops, Object... extraResources)
            throws IOException {
        URI base = URI.create("http://" + config.host() + ":" + config.port() + "/");
        GrizzlyHttpContainer jersey = ContainerFactory.createContainer(
                GrizzlyHttpContainer.class, resourceConfig(injector, config, ops, extraResources));
        HttpServer server =
                GrizzlyHttpServerFactory.createHttpServer(base, (GrizzlyHttpContainer) null, false, null, false);
        ServerConfiguration settings = server.getServerConfiguration();
        settings.addHttpHandler(
                new HttpSpans(
                        new GrizzlyProblems.RequestTargetGuard(jersey), injector.getInstance(OpenTelemetry.class)),
                HttpHandlerRegistration.ROOT);
        settings.setPassTraceRequest(true);
        // a GET or DELETE with a body reaches Jersey (which answers it, or 405 with Allow) instead
        // of being refused by Grizzly before authentication and the body limit had their say
        settings.setAllowPayloadForUndefinedHttpMethods(true);
        // a body left unread (refused before reading: 401, 413, ...) is skipped to keep the
        // connection only when small; past this the connection is closed once the answer is out
        settings.setMaxPayloadRemainderToSkip(64 * 1024);
        settings.setDefaultQueryEncoding(StandardCharsets.UTF_8);
        settings.setDefaultErrorPageGenerator(new GrizzlyProblems.ProblemErrorPage());
        for (NetworkListener listener : server.getListeners()) {
            listener.setMaxHttpHeaderSize(MAX_HEAD_BYTES);
            listener.setDefaultErrorPageGenerator(new GrizzlyProblems.ProblemErrorPage());
            listener.registerAddOn(HeadErrorCodec.installer(MAX_HEAD_BYTES));
        }
        server.start();
        return server;
    }

    public static int port(HttpServer server) {
        return server.getListeners().iterator().next().getPort();
    }
}
