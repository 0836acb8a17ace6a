package dev.outbox.messaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ExponentialBackoffTest {
    @Test
    void ceilingsDoubleUpToTheCap() {
        ExponentialBackoff b = new ExponentialBackoff(Duration.ofMillis(500), Duration.ofSeconds(30), () -> 1.0);
        assertEquals(Duration.ofMillis(500), b.ceiling(0));
        assertEquals(Duration.ofMillis(1000), b.ceiling(1));
        assertEquals(Duration.ofMillis(16000), b.ceiling(5));
        assertEquals(Duration.ofSeconds(30), b.ceiling(6));
        assertEquals(Duration.ofSeconds(30), b.ceiling(1000), "no overflow however long the outage");
    }

    @Test
    void delaysAreJitteredButNeverAStorm() {
        ExponentialBackoff low = new ExponentialBackoff(Duration.ofMillis(500), Duration.ofSeconds(30), () -> 0.0);
        assertEquals(Duration.ofMillis(250), low.delay(10), "never below half the initial delay");
        ExponentialBackoff real = new ExponentialBackoff(Duration.ofMillis(500), Duration.ofSeconds(30));
        for (int i = 0; i < 1000; i++) {
            Duration d = real.delay(i % 12);
            assertTrue(d.toMillis() >= 250 && d.toMillis() <= 30_000, d.toString());
        }
    }

    @Test
    void refusesNonsense() {
        assertThrows(
                IllegalArgumentException.class, () -> new ExponentialBackoff(Duration.ZERO, Duration.ofSeconds(1)));
        assertThrows(
                IllegalArgumentException.class,
                () -> new ExponentialBackoff(Duration.ofSeconds(2), Duration.ofSeconds(1)));
    }
}
