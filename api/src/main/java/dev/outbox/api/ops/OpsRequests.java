package dev.outbox.api.ops;

import dev.outbox.api.http.ApiException;
import dev.outbox.api.http.StorableValues;
import dev.outbox.domain.Violation;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * What the operator endpoints share: how they read a request's values (a field absent or blank,
 * an enum, an instant, an integer, a row id, each refused with a named violation), and the words
 * {@code /openapi.json} says of their answers.
 */
final class OpsRequests {
    static final String NO_SUCH_ROW = "not_found: no such row.";
    static final String INVALID_STATE = "invalid_state: not allowed in the row's current state.";
    static final String DONE = "What was done; an audit entry records it.";
    static final String DATE_TIME = "An ISO-8601 date-time between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z.";

    private OpsRequests() {}

    static UUID id(String id) {
        try {
            UUID parsed = UUID.fromString(id);
            if (parsed.toString().equalsIgnoreCase(id)) {
                return parsed;
            }
        } catch (IllegalArgumentException e) {
            // fall through
        }
        throw ApiException.badRequest("invalid_id", "a message id is a UUID");
    }

    static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.trim();
    }

    /**
     * A JSON field is absent when missing or null; one that is there must say something. (A query
     * parameter left blank is absent: that is how forms send an unset filter.)
     */
    static String present(String value, String field, List<Violation> errors) {
        if (value != null && value.isBlank()) {
            errors.add(new Violation(field, "must not be blank; leave it out or set it to null"));
        }
        return value;
    }

    static <E extends Enum<E>> String enumValue(String field, String value, Class<E> type, List<Violation> errors) {
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            return Enum.valueOf(type, value.trim()).name();
        } catch (IllegalArgumentException e) {
            List<String> names = new ArrayList<>();
            for (E c : type.getEnumConstants()) {
                names.add(c.name());
            }
            errors.add(new Violation(field, "must be one of " + String.join(", ", names)));
            return null;
        }
    }

    static Instant instant(String field, String value, List<Violation> errors) {
        if (value == null || value.isBlank()) {
            return null;
        }
        Instant parsed;
        try {
            parsed = OffsetDateTime.parse(value.trim()).toInstant();
        } catch (DateTimeParseException e) {
            errors.add(new Violation(field, "must be an ISO-8601 instant such as 2026-11-30T09:00:00Z"));
            return null;
        }
        String defect = StorableValues.instantDefect(parsed);
        if (defect != null) {
            errors.add(new Violation(field, defect));
            return null;
        }
        return parsed;
    }

    static int integer(String field, String value, int dflt, int min, int max, List<Violation> errors) {
        if (value == null || value.isBlank()) {
            return dflt;
        }
        try {
            int v = Integer.parseInt(value.trim());
            if (v >= min && v <= max) {
                return v;
            }
        } catch (NumberFormatException e) {
            // fall through
        }
        errors.add(new Violation(field, "must be an integer between " + min + " and " + max));
        return dflt;
    }
}
