package dev.outbox.api;

import dev.outbox.config.Settings;
import dev.outbox.testkit.TestDatabase;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The API on a free loopback port for one test class, over the test database, with an empty
 * database before each test: {@code @RegisterExtension static final RunningApi API = new
 * RunningApi(DB, "OUTBOX_OPS_TOKEN", token)}. Extra settings come as name, value pairs.
 */
final class RunningApi implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback {
    private final TestDatabase db;
    private final Map<String, String> settings;
    private ApiApp app;
    private ApiClient client;

    RunningApi(TestDatabase db, String... nameValuePairs) {
        if (nameValuePairs.length % 2 != 0) {
            throw new IllegalArgumentException("settings come as name, value pairs");
        }
        this.db = db;
        this.settings = new HashMap<>(db.env());
        settings.put("OUTBOX_HTTP_PORT", "0");
        settings.put("OUTBOX_HTTP_HOST", "127.0.0.1");
        for (int i = 0; i < nameValuePairs.length; i += 2) {
            settings.put(nameValuePairs[i], nameValuePairs[i + 1]);
        }
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        app = ApiApp.start(new Settings(settings));
        client = new ApiClient(app.port());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (app != null) {
            app.close();
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        db.reset();
    }

    ApiClient client() {
        return client;
    }

    int port() {
        return app.port();
    }

    /** Exports the spans the API still buffers, when it traces: they are all at the collector after this. */
    void flushSpans() {
        if (app.injector().getInstance(io.opentelemetry.api.OpenTelemetry.class)
                instanceof io.opentelemetry.sdk.OpenTelemetrySdk sdk) {
            sdk.getSdkTracerProvider().forceFlush().join(10, java.util.concurrent.TimeUnit.SECONDS);
        }
    }
}
