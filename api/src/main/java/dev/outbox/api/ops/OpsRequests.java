package dev.outbox.api.ops;

import dev.outbox.api.http.ApiException;
import dev.outbox.api.http.StorableValues;
import dev.outbox.domain.Violation;
import dev.outbox.kernel.outbox.Codes;
import dev.outbox.kernel.outbox.ErrorCode;
import dev.outbox.kernel.outbox.OutboxStatus;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

/**
 * What the operator endpoints share: how they read a request's values (a field absent or blank,
 * a status or error code, an instant, an integer, a row id, each refused with a named violation), and the words
 * {@code /openapi.json} says of their answers.
 */
final class OpsRequests {
    static final String NO_SUCH_ROW = "not_found: no such row.";
    static final String INVALID_STATE = "invalid_state: not allowed in the row's current state.";
    static final String DONE = "What was done; an audit entry records it.";
    static final String DATE_TIME = "An ISO-8601 date-time between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z.";

    /** The statuses and error codes this version knows, in their enums' order. */
    private static final List<String> KNOWN_STATUSES =
            Arrays.stream(OutboxStatus.values()).map(Enum::name).toList();

    private static final List<String> KNOWN_ERROR_CODES =
            Arrays.stream(ErrorCode.values()).map(Enum::name).toList();

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

    /**
     * A status to filter by: any value of the stored shape ({@link Codes#SHAPE}), known to this
     * version or not. A status a newer version writes matches its rows; one no row has matches none.
     */
    static String statusFilter(String field, String value, List<Violation> errors) {
        return shaped(field, value, "a status", KNOWN_STATUSES, errors);
    }

    /** An error code to filter by, as {@link #statusFilter}: any value of the stored shape. */
    static String errorCodeFilter(String field, String value, List<Violation> errors) {
        return shaped(field, value, "an error code", KNOWN_ERROR_CODES, errors);
    }

    /**
     * The violation of a filter value of another form than the stored one ({@code OpenNames} says the
     * same in {@code /openapi.json}): no row can hold it, so it is refused rather than matched against
     * nothing, since it is more likely a typo ({@code parked}) than a question.
     */
    private static String shapeInWords(String what, List<String> known) {
        return "must be " + what + ": an upper-case letter, then upper-case letters, digits or _, at most 40"
                + " characters in all (known to this version: " + String.join(", ", known) + ")";
    }

    private static String shaped(String field, String value, String what, List<String> known, List<Violation> errors) {
        if (value == null || value.isBlank()) {
            return null;
        }
        String v = value.trim();
        if (Codes.shaped(v)) {
            return v;
        }
        errors.add(new Violation(field, shapeInWords(what, known)));
        return null;
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
