package dev.outbox.ctl;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The times {@code --from}/{@code --to} accept: an ISO instant ({@code 2026-11-30T09:00:00Z}), a
 * UTC date ({@code 2026-11-30}, its midnight), or an age ({@code 90s}, {@code 30m}, {@code 2h},
 * {@code 1d}: that long before now). Pure given the clock.
 */
final class Times {
    private static final Pattern AGO = Pattern.compile("(\\d{1,9})([smhd])");

    private Times() {}

    static Instant parse(String value, Clock clock) {
        String v = value.trim();
        Matcher m = AGO.matcher(v);
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            Duration d = switch (m.group(2)) {
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            };
            return clock.instant().minus(d);
        }
        try {
            return Instant.parse(v);
        } catch (DateTimeParseException e) {
            // try a date next
        }
        try {
            return LocalDate.parse(v).atStartOfDay(ZoneOffset.UTC).toInstant();
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("'" + value + "' is not a time: use 2026-11-30T09:00:00Z, 2026-11-30"
                    + " or an age such as 30m, 2h, 1d");
        }
    }
}
