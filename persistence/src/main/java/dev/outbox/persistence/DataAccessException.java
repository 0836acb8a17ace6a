package dev.outbox.persistence;

import dev.outbox.config.EnvironmentFailure;

/**
 * A database operation failed. Driver and MyBatis exceptions are translated into this family
 * once, at the persistence boundary ({@link DataAccessTranslation}), so callers decide on
 * named kinds instead of SQL states.
 */
public class DataAccessException extends RuntimeException implements EnvironmentFailure {
    private static final long serialVersionUID = 1L;

    public DataAccessException(String message, Throwable cause) {
        super(message, cause);
    }

    /** True when the same operation may succeed if tried again later. */
    public boolean isTransient() {
        return false;
    }
}
