package dev.outbox.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class BackoffPolicyTest {
    private final BackoffPolicy atCeiling = new BackoffPolicy(RelayConfig.DEFAULT_BACKOFF, () -> 1.0);

    @Test
    void theDefaultScheduleIsImmediateThenTenSecondsOneFiveAndFifteenMinutes() {
        assertEquals(5, atCeiling.maxAttempts());
        assertEquals(new BackoffPolicy.Retry(Duration.ofSeconds(10)), atCeiling.afterFailure(1));
        assertEquals(new BackoffPolicy.Retry(Duration.ofMinutes(1)), atCeiling.afterFailure(2));
        assertEquals(new BackoffPolicy.Retry(Duration.ofMinutes(5)), atCeiling.afterFailure(3));
        assertEquals(new BackoffPolicy.Retry(Duration.ofMinutes(15)), atCeiling.afterFailure(4));
    }

    @Test
    void theRowIsParkedOnceTheBudgetIsSpent() {
        assertEquals(new BackoffPolicy.Park(5), atCeiling.afterFailure(5));
        assertEquals(new BackoffPolicy.Park(9), atCeiling.afterFailure(9));
    }

    @Test
    void jitterIsFullUniformBetweenZeroAndTheScheduledDelay() {
        BackoffPolicy low = new BackoffPolicy(RelayConfig.DEFAULT_BACKOFF, () -> 0.0);
        BackoffPolicy mid = new BackoffPolicy(RelayConfig.DEFAULT_BACKOFF, () -> 0.25);
        assertEquals(new BackoffPolicy.Retry(Duration.ZERO), low.afterFailure(2));
        assertEquals(new BackoffPolicy.Retry(Duration.ofSeconds(15)), mid.afterFailure(2));
        BackoffPolicy real = new BackoffPolicy(RelayConfig.DEFAULT_BACKOFF);
        for (int i = 0; i < 1_000; i++) {
            Duration d = assertInstanceOf(BackoffPolicy.Retry.class, real.afterFailure(3))
                    .delay();
            assertTrue(!d.isNegative() && d.compareTo(Duration.ofMinutes(5)) <= 0, d.toString());
        }
    }

    @Test
    void aConfigurableBudget() {
        BackoffPolicy two = new BackoffPolicy(List.of(Duration.ZERO, Duration.ofSeconds(1)), () -> 1.0);
        assertEquals(new BackoffPolicy.Retry(Duration.ofSeconds(1)), two.afterFailure(1));
        assertEquals(new BackoffPolicy.Park(2), two.afterFailure(2));
        assertThrows(IllegalArgumentException.class, () -> new BackoffPolicy(List.of()));
        assertThrows(IllegalArgumentException.class, () -> two.afterFailure(0));
    }

    @Test
    void aVerdictParksPermanentFailuresAtOnceAndRetryableOnesWhenTheScheduleIsSpent() {
        // the one decision both relays (polling and CDC) take on a failed attempt
        BackoffPolicy.Verdict permanent =
                atCeiling.decide(dev.outbox.kernel.outbox.ErrorCode.UNROUTABLE, "basic.return 312", 1);
        org.junit.jupiter.api.Assertions.assertTrue(permanent.park());
        assertEquals("basic.return 312", permanent.detail());

        BackoffPolicy.Verdict retry =
                atCeiling.decide(dev.outbox.kernel.outbox.ErrorCode.CONNECTION_LOST, "connection lost", 1);
        assertEquals(java.time.Duration.ofSeconds(10), retry.retryAfter());
        assertEquals("connection lost", retry.detail());

        BackoffPolicy.Verdict spent = atCeiling.decide(
                dev.outbox.kernel.outbox.ErrorCode.CONNECTION_LOST,
                "connection lost",
                RelayConfig.DEFAULT_BACKOFF.size());
        org.junit.jupiter.api.Assertions.assertTrue(spent.park());
        assertEquals("connection lost (all 5 attempts failed)", spent.detail());
    }
}
