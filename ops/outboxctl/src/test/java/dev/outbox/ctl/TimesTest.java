package dev.outbox.ctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class TimesTest {
    private final Clock clock = Clock.fixed(Instant.parse("2026-11-30T12:00:00Z"), ZoneOffset.UTC);

    @Test
    void acceptsInstantsDatesAndAges() {
        assertEquals(Instant.parse("2026-11-30T09:15:00Z"), Times.parse("2026-11-30T09:15:00Z", clock));
        assertEquals(Instant.parse("2026-11-29T00:00:00Z"), Times.parse("2026-11-29", clock));
        assertEquals(Instant.parse("2026-11-30T11:59:30Z"), Times.parse("30s", clock));
        assertEquals(Instant.parse("2026-11-30T11:30:00Z"), Times.parse("30m", clock));
        assertEquals(Instant.parse("2026-11-30T10:00:00Z"), Times.parse(" 2h ", clock));
        assertEquals(Instant.parse("2026-11-29T12:00:00Z"), Times.parse("1d", clock));
    }

    @Test
    void refusesAnythingElseSayingWhatWouldDo() {
        for (String bad : new String[] {"yesterday", "2h30m", "-2h", "2026-13-01", ""}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Times.parse(bad, clock));
            assertTrue(e.getMessage().contains("2026-11-30T09:00:00Z"), e.getMessage());
        }
    }
}
