package dev.outbox.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.config.Settings;
import dev.outbox.kernel.outbox.ErrorCode;
import dev.outbox.kernel.outbox.OutboxRecord;
import dev.outbox.messaging.publish.PublishSpans;
import dev.outbox.persistence.outbox.Failure;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The lane's decisions without a broker or a database: which failures park at once, which retry
 * on the backoff schedule and when that schedule is spent, and that a suspect (a message in
 * flight when a destination error closed the channel) is neither lost nor reported twice.
 */
class PublishLaneTest {
    private static final List<Duration> SCHEDULE =
            List.of(Duration.ZERO, Duration.ofSeconds(10), Duration.ofMinutes(1));

    private final PublishLane lane = new PublishLane(
            0,
            RelayConfig.from(new Settings(Map.of())),
            null,
            null,
            null,
            new BackoffPolicy(SCHEDULE, () -> 0.5),
            new RelayStats(),
            new Wakeup(),
            null,
            null,
            PublishSpans.OFF);

    private static OutboxRecord afterAttempts(int attempts) {
        OutboxRecord leased = OutcomeRecorderTest.leased();
        return new OutboxRecord(
                leased.id(),
                leased.aggregateType(),
                leased.aggregateId(),
                leased.aggregateVersion(),
                leased.messageType(),
                leased.messageVersion(),
                leased.exchangeName(),
                leased.routingKey(),
                leased.payload(),
                leased.headers(),
                leased.status(),
                attempts,
                leased.nextAttemptAt(),
                null,
                null,
                leased.createdAt(),
                leased.lockedAt(),
                leased.lockedBy(),
                leased.leaseToken(),
                null,
                null,
                null,
                null,
                null);
    }

    @Test
    void permanentFailuresParkAtOnceWhateverTheAttemptBudget() {
        for (ErrorCode code :
                Arrays.stream(ErrorCode.values()).filter(c -> !c.retryable()).toList()) {
            Failure f = lane.decide(afterAttempts(1), code, "why");
            assertTrue(f.park(), code + " parks");
            assertEquals(code, f.code());
            assertEquals("why", f.message());
        }
    }

    @Test
    void retryableFailuresRetryOnTheScheduleWithJitterUntilItIsSpent() {
        Failure first = lane.decide(afterAttempts(1), ErrorCode.NACKED, "nack");
        assertFalse(first.park());
        assertEquals(Duration.ofSeconds(5), first.delay(), "half (the jitter) of the second slot, 10 s");
        Failure second = lane.decide(afterAttempts(2), ErrorCode.CONFIRM_TIMEOUT, "late");
        assertEquals(Duration.ofSeconds(30), second.delay());
        Failure spent = lane.decide(afterAttempts(3), ErrorCode.CONNECTION_LOST, "gone");
        assertTrue(spent.park());
        assertEquals("gone (all 3 attempts failed)", spent.message());
    }

    @Test
    void aRowThatWasNeverCountedIsTreatedAsItsFirstAttempt() {
        Failure f = lane.decide(afterAttempts(0), ErrorCode.BROKER_UNAVAILABLE, "down");
        assertFalse(f.park());
        assertEquals(Duration.ofSeconds(5), f.delay());
    }

    @Test
    void suspectsNotYetIsolatedAreHandedBackOnceOnShutdown() {
        OutboxRecord a = afterAttempts(1);
        OutboxRecord b = afterAttempts(1);
        lane.suspect(a, ErrorCode.EXCHANGE_NOT_FOUND, "404");
        lane.suspect(b, ErrorCode.EXCHANGE_NOT_FOUND, "404");
        assertEquals(List.of(a, b), lane.abandon());
        assertEquals(List.of(), lane.abandon(), "handed back once");
    }
}
