package dev.outbox.ctl;

import java.time.Instant;
import java.time.temporal.ChronoUnit;

/** How values read on a terminal. Pure. */
final class Format {
    private Format() {}

    /** An instant cut to whole seconds ({@code 2026-11-30T09:00:01Z}), or {@code null}. */
    static String instant(Instant at) {
        return at == null ? null : at.truncatedTo(ChronoUnit.SECONDS).toString();
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
