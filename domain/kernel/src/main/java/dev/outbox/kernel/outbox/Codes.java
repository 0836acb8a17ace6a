package dev.outbox.kernel.outbox;

import java.util.regex.Pattern;

/**
 * The form every outbox code has: each {@link OutboxStatus} and {@link ErrorCode} name, as stored in
 * {@code message_outbox.status} and {@code last_error_code}. The database's checks hold this form,
 * not a list of names (migration V16), so that a newer version's code can be stored while this
 * version still runs beside it in a rolling upgrade. A shaped value this version has no constant
 * for is therefore a newer version's: every read carries it as text ({@link OutboxRecord#status()},
 * {@link OutboxRecord#lastErrorCode()}), shows it as it is and counts it under its own label, and
 * only code that must act on a value asks whether it knows it ({@link OutboxStatus#named},
 * {@link ErrorCode#named}). Versions only ever add codes; one is removed only once no running
 * version can write it (expand, then contract).
 */
public final class Codes {
    /** Upper-case letters, digits and underscores, a letter first, at most 40 chars. */
    public static final Pattern SHAPE = Pattern.compile("[A-Z][A-Z0-9_]{0,39}");

    private Codes() {}

    /** Whether {@code value} has the form of a code (null has not): what the database's checks accept. */
    public static boolean shaped(String value) {
        return value != null && SHAPE.matcher(value).matches();
    }
}
