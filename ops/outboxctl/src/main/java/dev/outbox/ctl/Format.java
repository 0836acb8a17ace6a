package dev.outbox.ctl;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;

/** How values read on a terminal. Pure. */
final class Format {
    private Format() {}

    /** A JSON field as text, or {@code null} when it is missing or JSON null. */
    static String text(JsonNode node, String field) {
        JsonNode v = node == null ? null : node.get(field);
        return v == null || v.isNull() ? null : v.isValueNode() ? v.asText() : v.toString();
    }

    /** An ISO instant cut to whole seconds ({@code 2026-11-30T09:00:01Z}); other text unchanged. */
    static String instant(String iso) {
        if (iso == null) {
            return null;
        }
        try {
            return Instant.parse(iso).truncatedTo(ChronoUnit.SECONDS).toString();
        } catch (DateTimeParseException e) {
            return iso;
        }
    }

    /** A duration in seconds for people: {@code 42s}, {@code 5m 03s}, {@code 2h 10m}, {@code 3d 4h}. */
    static String age(double seconds) {
        long s = (long) Math.floor(Math.max(0, seconds));
        if (s < 60) {
            return s + "s";
        }
        if (s < 3600) {
            return String.format("%dm %02ds", s / 60, s % 60);
        }
        if (s < 86400) {
            return String.format("%dh %02dm", s / 3600, (s % 3600) / 60);
        }
        return String.format("%dd %dh", s / 86400, (s % 86400) / 3600);
    }
}
