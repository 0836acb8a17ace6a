package dev.outbox.config;

/**
 * Where a process serves its {@code /metrics} and {@code /health} ({@link ProcessEndpoint}).
 *
 * @param host the address to listen on
 * @param port the port: {@code 0} any free one, {@code -1} none at all
 */
public record EndpointConfig(String host, int port) {
    /** The port's range: {@code -1} turns the endpoint off, {@code 0} takes any free port. */
    public static final int OFF = -1;

    public static EndpointConfig from(Settings settings, Setting<String> host, Setting<Integer> port) {
        return new EndpointConfig(settings.get(host), settings.get(port));
    }

    /** With the port's default computed by the caller (a consumer's registration names its own). */
    public static EndpointConfig from(Settings settings, Setting<String> host, Setting<Integer> port, int defaultPort) {
        return new EndpointConfig(settings.get(host), settings.get(port, defaultPort));
    }

    public boolean enabled() {
        return port != OFF;
    }
}
