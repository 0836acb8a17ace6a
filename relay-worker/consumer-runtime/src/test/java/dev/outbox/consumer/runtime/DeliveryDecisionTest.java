package dev.outbox.consumer.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;

import com.rabbitmq.client.ShutdownSignalException;
import dev.outbox.consumer.NonRetryableMessageException;
import dev.outbox.consumer.runtime.DeliveryDecision.Ack;
import dev.outbox.consumer.runtime.DeliveryDecision.ApplyHeldSuccessors;
import dev.outbox.consumer.runtime.DeliveryDecision.CountFailure;
import dev.outbox.consumer.runtime.DeliveryDecision.CountSuccessorsFailure;
import dev.outbox.consumer.runtime.DeliveryDecision.Counted;
import dev.outbox.consumer.runtime.DeliveryDecision.DeadLetter;
import dev.outbox.consumer.runtime.DeliveryDecision.HeldNotDeadLettered;
import dev.outbox.consumer.runtime.DeliveryDecision.NotCounted;
import dev.outbox.consumer.runtime.DeliveryDecision.Placement;
import dev.outbox.consumer.runtime.DeliveryDecision.Requeue;
import dev.outbox.consumer.runtime.DeliveryDecision.SuccessorsApplied;
import dev.outbox.consumer.runtime.DeliveryDecision.SuccessorsFailed;
import dev.outbox.consumer.runtime.DeliveryDecision.Verdict;
import dev.outbox.consumer.runtime.IdempotentProcessor.Outcome;
import dev.outbox.consumer.runtime.IdempotentProcessor.Result;
import dev.outbox.persistence.StatementRefusedException;
import dev.outbox.testkit.gen.Generators;
import java.io.IOException;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;
import org.quicktheories.generators.SourceDSL;

/**
 * The delivery decision without a channel, a database or a clock: every verdict, and the
 * boundaries between them (the last attempt before the dead letter, the first requeue, the
 * failure that cannot be counted, the next version against a later one). The runner executing
 * these verdicts on a channel is {@link ConsumerRunnerVerdictTest}; against a real broker and
 * database, {@link ConsumerFrameworkIT}. The generated properties run on QuickTheories: a failure
 * prints its shrunk counterexample and the seed, which {@code -DQT_SEED=<seed>} replays.
 */
class DeliveryDecisionTest {
    private static final Duration DELAY = Duration.ofMillis(200);
    private static final CountFailure FAILED = new CountFailure("IllegalStateException: boom");

    /** A consumer's {@code maxAttempts} and a message's attempts so far, half of them within two of the limit. */
    record Attempts(int maxAttempts, int attempts) {
        String against() {
            return attempts < maxAttempts - 1
                    ? "below"
                    : attempts == maxAttempts - 1 ? "the last before" : attempts == maxAttempts ? "at" : "past";
        }
    }

    static Gen<Attempts> attempts() {
        return ints(1, 1_000)
                .flatMap(max -> Generate.oneOf(ints(Math.max(1, max - 2), max + 2), ints(1, 2_000))
                        .map(n -> new Attempts(max, n)));
    }

    /**
     * Whole numbers from {@code min} to {@code max}, one in ten an edge of the range: either end, the
     * number next to it, and -1, 0, 1 where in range.
     */
    private static Gen<Integer> ints(int min, int max) {
        List<Integer> edges = Stream.of(min, min + 1, -1, 0, 1, max - 1, max)
                .filter(v -> v >= min && v <= max)
                .distinct()
                .toList();
        return SourceDSL.integers().between(min, max).mix(Generate.pick(edges), 10);
    }

    /**
     * Whole numbers from {@code min} to {@code max}, one in ten an edge of the range: either end, the
     * number next to it, and -1, 0, 1 where in range.
     */
    private static Gen<Long> longs(long min, long max) {
        List<Long> edges = Stream.of(min, min + 1, -1L, 0L, 1L, max - 1, max)
                .filter(v -> v >= min && v <= max)
                .distinct()
                .toList();
        return SourceDSL.longs().between(min, max).mix(Generate.pick(edges), 10);
    }

    /** As the runner builds it: {@code maxAttempts} and {@code retryDelay} from the consumer's settings. */
    private static DeliveryDecision decision(int maxAttempts, Duration retryDelay) {
        return DeliveryDecision.of(
                new ConsumerSettings("c", "q", "q.dlq", 1, 1, maxAttempts, retryDelay, Duration.ofSeconds(1)));
    }

    // --- what arrives

    @Test
    void aDeliveryThatBreaksTheContractIsDeadLetteredAtOnceNamingTheRule() {
        qt().withExamples(1_000)
                .forAll(Generate.enumValues(WireContract.Rule.class), Generators.text(0, 80), ints(1, 1_000))
                .checkAssert((rule, detail, maxAttempts) -> assertEquals(
                        new DeadLetter("contract/" + rule.id() + ": " + detail, 1),
                        decision(maxAttempts, DELAY).contractBroken(new WireContract.Violation(rule, detail))));
    }

    @Test
    void aCommittedStepIsAckedAsWhatItDidUnlessItsAggregatesNextVersionWaits() {
        qt().withExamples(1_000)
                .forAll(Generate.enumValues(Result.class), Generate.booleans())
                .checkAssert((result, successorHeld) -> {
                    Verdict verdict = decision(5, DELAY).afterStep(new Outcome(result, successorHeld));
                    assertEquals(successorHeld ? new ApplyHeldSuccessors(result) : new Ack(result), verdict);
                });
    }

    // --- a failed step

    @Test
    void aNonRetryableFailureIsDeadLetteredAtOnceWithItsMessageWhateverTheAttemptsLeft() {
        DeliveryDecision generous = decision(1_000, DELAY);
        assertEquals(
                new DeadLetter("v2 breaks its contract", 1),
                generous.afterFailure(new NonRetryableMessageException("v2 breaks its contract")));
        assertEquals(
                new DeadLetter("NonRetryableMessageException", 1),
                generous.afterFailure(new NonRetryableMessageException(null)));
    }

    @Test
    void anyOtherFailureIsCountedBeforeAnythingIsDecided() {
        DeliveryDecision d = decision(5, DELAY);
        assertEquals(
                new CountFailure("IllegalStateException: boom"), d.afterFailure(new IllegalStateException("boom")));
        assertEquals(
                new CountFailure("StatementRefusedException: statement timeout"),
                d.afterFailure(new StatementRefusedException("statement timeout", null)),
                "a statement the reachable database refused may fail every time: counted, not waited out");
        assertEquals(
                new CountFailure("AssertionError: a handler's bug"),
                d.afterFailure(new AssertionError("a handler's bug")));
        assertEquals(new CountFailure("StackOverflowError: null"), d.afterFailure(new StackOverflowError()));
        IOException closed = new IOException(new ShutdownSignalException(false, false, null, null));
        assertEquals(
                new CountFailure("channel closed"),
                d.afterFailure(closed),
                "a channel closed under the handler is described by its shutdown signal");
    }

    // --- the attempt limit

    @Test
    void aCountedFailureIsRequeuedAfterRetryDelayTimesItsAttemptsUntilTheLastDeadLettersIt() {
        Map<String, Integer> verdicts = new TreeMap<>();
        Map<String, Integer> againstTheLimit = new TreeMap<>();
        qt().withExamples(1_000).forAll(attempts(), longs(0, 60_000)).checkAssert((limit, retryDelayMillis) -> {
            int maxAttempts = limit.maxAttempts();
            int attempts = limit.attempts();
            Duration retryDelay = Duration.ofMillis(retryDelayMillis);
            Verdict verdict = decision(maxAttempts, retryDelay).afterCount(FAILED, new Counted(attempts));
            if (attempts < maxAttempts) {
                assertEquals(new Requeue(Duration.ofMillis(retryDelayMillis * attempts)), verdict);
            } else {
                assertEquals(
                        new DeadLetter(FAILED.reason(), attempts), verdict, "dead-lettered with the attempts counted");
            }
            verdicts.merge(verdict.getClass().getSimpleName(), 1, Integer::sum);
            againstTheLimit.merge(limit.against(), 1, Integer::sum);
        });
        System.out.println("[DeliveryDecisionTest] verdict " + verdicts + "; against the limit " + againstTheLimit);
        // the generator's promise: the boundary itself is tried often, not left to luck
        int examples =
                againstTheLimit.values().stream().mapToInt(Integer::intValue).sum();
        for (String against : List.of("the last before", "at")) {
            double percent = 100.0 * againstTheLimit.getOrDefault(against, 0) / examples;
            assertTrue(percent > 5, "'" + against + "' the limit in " + percent + "% of " + againstTheLimit);
        }
    }

    @Test
    void theLastAttemptBeforeTheDeadLetterIsRequeuedAndTheOneAtTheLimitIsNot() {
        DeliveryDecision d = decision(5, DELAY);
        assertEquals(new Requeue(DELAY), d.afterCount(FAILED, new Counted(1)), "the first failure: one pause");
        assertEquals(new Requeue(DELAY.multipliedBy(4)), d.afterCount(FAILED, new Counted(4)), "the last one left");
        assertEquals(new DeadLetter(FAILED.reason(), 5), d.afterCount(FAILED, new Counted(5)));
        assertEquals(
                new DeadLetter(FAILED.reason(), 6),
                d.afterCount(FAILED, new Counted(6)),
                "counted past the limit (two instances failed it at once): dead-lettered, never requeued");
    }

    @Test
    void withOneAttemptTheFirstFailureDeadLettersAndWithTwoItIsRequeuedOnce() {
        assertEquals(new DeadLetter(FAILED.reason(), 1), decision(1, DELAY).afterCount(FAILED, new Counted(1)));
        assertEquals(new Requeue(DELAY), decision(2, DELAY).afterCount(FAILED, new Counted(1)));
        assertEquals(new DeadLetter(FAILED.reason(), 2), decision(2, DELAY).afterCount(FAILED, new Counted(2)));
    }

    /** A message that fails every time, as the runner meets it delivery after delivery. */
    @Test
    void aMessageThatAlwaysFailsIsTriedMaxAttemptsTimesThenDeadLettered() {
        qt().withExamples(1_000).forAll(ints(1, 200), longs(0, 1_000)).checkAssert((maxAttempts, retryDelayMillis) -> {
            DeliveryDecision d = decision(maxAttempts, Duration.ofMillis(retryDelayMillis));
            int tries = 0;
            int requeues = 0;
            Duration paused = Duration.ZERO;
            Verdict verdict;
            do {
                tries++;
                verdict = d.afterCount(FAILED, new Counted(tries));
                if (verdict instanceof Requeue r) {
                    requeues++;
                    paused = paused.plus(r.after());
                }
            } while (verdict instanceof Requeue && tries <= maxAttempts);
            assertEquals(new DeadLetter(FAILED.reason(), maxAttempts), verdict);
            assertEquals(maxAttempts - 1, requeues);
            assertEquals(
                    Duration.ofMillis(retryDelayMillis * maxAttempts * (maxAttempts - 1) / 2),
                    paused,
                    "the pauses grow linearly: 1, 2, ... maxAttempts-1 times retryDelay");
        });
    }

    @Test
    void aFailureThatCannotBeCountedForNowIsRequeuedAfterOnePauseAndOneThatNeverCanGoesAtOnce() {
        qt().withExamples(1_000)
                .forAll(ints(1, 1_000), longs(0, 60_000), Generators.text(1, 40))
                .checkAssert((maxAttempts, retryDelayMillis, error) -> {
                    DeliveryDecision d = decision(maxAttempts, Duration.ofMillis(retryDelayMillis));
                    assertEquals(
                            new Requeue(Duration.ofMillis(retryDelayMillis)),
                            d.afterCount(FAILED, new NotCounted(true, error)),
                            "uncounted: it spends no attempt, and its pause does not grow");
                    assertEquals(
                            new DeadLetter(FAILED.reason() + " (and its failure cannot be counted: " + error + ")", 1),
                            d.afterCount(FAILED, new NotCounted(false, error)),
                            "unbounded retries are never risked");
                });
    }

    /** Held messages are tried again in place (not requeued) under the same rule as deliveries. */
    @Test
    void theHeldMessagesRuleIsTheDeliveriesRule() {
        qt().withExamples(1_000).forAll(attempts(), longs(0, 60_000)).checkAssert((limit, retryDelayMillis) -> {
            int maxAttempts = limit.maxAttempts();
            int attempts = limit.attempts();
            DeliveryDecision d = decision(maxAttempts, Duration.ofMillis(retryDelayMillis));
            Verdict delivery = d.afterCount(FAILED, new Counted(attempts));
            assertEquals(delivery instanceof DeadLetter, d.spent(attempts));
            if (delivery instanceof Requeue r) {
                assertEquals(r.after(), d.pauseAfter(attempts));
            }
        });
    }

    // --- held successors

    @Test
    void appliedSuccessorsAckTheDeliveryAndOnesThatFailedForGoodDoToo() {
        qt().withExamples(1_000)
                .forAll(Generate.enumValues(Result.class), Generators.text(0, 40))
                .checkAssert((counted, reason) -> {
                    DeliveryDecision d = decision(5, DELAY);
                    ApplyHeldSuccessors applying = new ApplyHeldSuccessors(counted);
                    assertEquals(new Ack(counted), d.afterSuccessors(applying, new SuccessorsApplied()));
                    assertEquals(
                            new Ack(counted),
                            d.afterSuccessors(applying, new SuccessorsFailed(false, reason)),
                            "a permanent error would fail the same on every redelivery: acked, they stay held");
                    assertEquals(
                            new CountSuccessorsFailure(counted, reason),
                            d.afterSuccessors(applying, new SuccessorsFailed(true, reason)));
                    assertEquals(
                            new Requeue(DELAY),
                            d.afterSuccessors(applying, new HeldNotDeadLettered(reason)),
                            "a held message that could not be dead-lettered: the delivery that found it comes back");
                });
    }

    @Test
    void successorsThatFailedForNowAreRetriedThroughTheirPredecessorWhileItsAttemptsLast() {
        qt().withExamples(1_000)
                .forAll(Generate.enumValues(Result.class), attempts(), longs(0, 60_000))
                .checkAssert((counted, limit, retryDelayMillis) -> {
                    int maxAttempts = limit.maxAttempts();
                    int attempts = limit.attempts();
                    DeliveryDecision d = decision(maxAttempts, Duration.ofMillis(retryDelayMillis));
                    CountSuccessorsFailure failure =
                            new CountSuccessorsFailure(counted, "StatementRefusedException: timeout");
                    Verdict verdict = d.afterSuccessorsCount(failure, new Counted(attempts));
                    assertEquals(
                            attempts < maxAttempts
                                    ? new Requeue(Duration.ofMillis(retryDelayMillis * attempts))
                                    : new Ack(counted),
                            verdict,
                            "the predecessor stays applied: at the limit it is acked, never dead-lettered");
                    assertEquals(
                            new Ack(counted),
                            d.afterSuccessorsCount(failure, new NotCounted(true, "again")),
                            "a count that failed too cannot bound the retries: acked");
                });
    }

    // --- settling

    @Test
    void aDeadLetterTheBrokerDidNotConfirmIsRequeuedAndAnEscapedErrorIsDeadLettered() {
        DeliveryDecision d = decision(5, DELAY);
        assertEquals(new Requeue(DELAY), d.notDeadLettered());
        assertEquals(
                new DeadLetter("consumer error: IllegalStateException: lost", 1),
                d.escaped(new IllegalStateException("lost")));
    }

    // --- per-aggregate order

    @Test
    void anOrderedMessageIsAppliedOnlyAsItsAggregatesNextVersion() {
        Map<Placement, Integer> placements = new EnumMap<>(Placement.class);
        qt().withExamples(1_000)
                .forAll(longs(0, 1L << 53), ints(-3, 3))
                .assuming((applied, ahead) -> applied + ahead >= 1)
                .checkAssert((applied, ahead) -> {
                    Placement expected = ahead <= 0 ? Placement.STALE : ahead == 1 ? Placement.APPLY : Placement.HOLD;
                    assertEquals(expected, DeliveryDecision.placement(applied + ahead, applied));
                    placements.merge(expected, 1, Integer::sum);
                });
        System.out.println("[DeliveryDecisionTest] placements " + placements);
    }

    @Test
    void anyVersionFarAheadIsHeldAndAnyAtOrBehindIsStale() {
        qt().withExamples(1_000)
                .forAll(longs(1, Long.MAX_VALUE), longs(0, Long.MAX_VALUE))
                .checkAssert((version, applied) -> {
                    Placement p = DeliveryDecision.placement(version, applied);
                    if (version <= applied) {
                        assertEquals(Placement.STALE, p);
                    } else {
                        assertEquals(version - applied == 1 ? Placement.APPLY : Placement.HOLD, p);
                    }
                });
    }

    @Test
    void aNewAggregateAppliesItsFirstVersionAndHoldsItsSecond() {
        assertEquals(Placement.APPLY, DeliveryDecision.placement(1, 0));
        assertEquals(Placement.HOLD, DeliveryDecision.placement(2, 0));
        assertEquals(Placement.STALE, DeliveryDecision.placement(Long.MAX_VALUE, Long.MAX_VALUE));
    }
}
