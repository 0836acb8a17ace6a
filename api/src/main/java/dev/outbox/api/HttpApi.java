package dev.outbox.api;

import com.google.inject.Injector;
import dev.outbox.api.http.JsonConfig;
import dev.outbox.api.http.ProblemExceptionMapper;
import dev.outbox.api.http.RequestMetadataFilter;
import dev.outbox.api.ops.OpsAuthFilter;
import dev.outbox.api.ops.OpsConfig;
import dev.outbox.api.ops.OpsResource;
import dev.outbox.api.orders.OrderResource;
import java.io.IOException;
import java.net.URI;
import org.glassfish.grizzly.http.server.HttpServer;
import org.glassfish.jersey.CommonProperties;
import org.glassfish.jersey.grizzly2.httpserver.GrizzlyHttpServerFactory;
import org.glassfish.jersey.jackson.JacksonFeature;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.server.ServerProperties;

/**
 * Jersey on Grizzly, with resources built by Guice (constructor injection, final fields) and
 * registered as instances. Auto-discovery is off, so nothing joins the application unasked;
 * Jackson comes without its own exception mappers, which would echo parser text to clients.
 */
public final class HttpApi {
    private HttpApi() {
    }

    static ResourceConfig resourceConfig(Injector injector, OpsConfig ops, Object... extraResources) {
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
        rc.register(RequestMetadataFilter.class);
        rc.register(dev.outbox.api.idempotency.IdempotencyFilter.class);
        rc.register(new OpsAuthFilter(ops));
        rc.register(injector.getInstance(OrderResource.class));
        rc.register(injector.getInstance(OpsResource.class));
        for (Object r : extraResources) {
            rc.register(r);
        }
        for (Object r : extraResources) {
            rc.register(r);
        }
        return rc;
    }

    /** Starts listening; the caller stops the server. */
    public static HttpServer start(Injector injector, ApiConfig config, OpsConfig ops, Object... extraResources)
            throws IOException {
        URI base = URI.create("http://" + config.host() + ":" + config.port() + "/");
        HttpServer server = GrizzlyHttpServerFactory.createHttpServer(base,
                resourceConfig(injector, ops, extraResources), false);
        server.start();
        return server;
    }

    public static int port(HttpServer server) {
        return server.getListeners().iterator().next().getPort();
    }
}
