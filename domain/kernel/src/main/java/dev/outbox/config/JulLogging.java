package dev.outbox.config;

import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * Sends what libraries log through {@code java.util.logging} (Jersey; the OpenTelemetry SDK's
 * "failed to export spans") to this project's logs, so it comes out in the process's format (one
 * JSON object per line with {@code OUTBOX_LOG_FORMAT=json}) instead of the JDK's two-line text on
 * standard error.
 */
public final class JulLogging {
    private JulLogging() {}

    /** Idempotent; the JDK's own console handler is removed so nothing is printed twice. */
    public static synchronized void route() {
        if (!SLF4JBridgeHandler.isInstalled()) {
            SLF4JBridgeHandler.removeHandlersForRootLogger();
            SLF4JBridgeHandler.install();
        }
    }
}
