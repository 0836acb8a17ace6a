package dev.outbox.config;

/** A setting is missing or malformed. The message names the variable and what it must be. */
public final class ConfigurationException extends RuntimeException implements EnvironmentFailure {
    private static final long serialVersionUID = 1L;

    public ConfigurationException(String message) {
        super(message);
    }
}
