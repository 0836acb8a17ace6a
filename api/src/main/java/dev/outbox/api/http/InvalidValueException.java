package dev.outbox.api.http;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;

/**
 * A JSON value of the right type that the API still refuses (text PostgreSQL cannot store, an
 * instant out of range), with the reason a client reads. Jackson adds the field's path as the
 * exception passes out of the object holding it, so the problem names the field.
 */
public final class InvalidValueException extends MismatchedInputException {
    private static final long serialVersionUID = 1L;
    private final String reason;

    public InvalidValueException(JsonParser parser, Class<?> type, String reason) {
        super(parser, reason, type);
        this.reason = reason;
    }

    public String reason() {
        return reason;
    }
}
