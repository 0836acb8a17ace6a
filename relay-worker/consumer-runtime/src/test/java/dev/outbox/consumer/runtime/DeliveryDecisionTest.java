package dev.outbox.consumer.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
import java.io.IOException;
import java.time.Duration;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.StringLength;
import net.jqwik.api.statistics.Statistics;

/**
 * The delivery decision without a channel, a database or a clock: every verdict, and the
 * boundaries between them (the last attempt before the dead letter, the first requeue, the
 * failure that cannot be counted, the next version against a later one). The runner executing
 * these verdicts on a channel is {@link ConsumerRunnerVerdictTest}; against a real broker and
 * database, {@link ConsumerFrameworkIT}.
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

    @Provide
    Arbitrary<Attempts> attempts() {
        return Arbitraries.integers()
                .between(1, 1_000)
                .flatMap(max -> Arbitraries.oneOf(
                                Arbitraries.integers().between(Math.max(1, max - 2), max + 2),
                                Arbitraries.integers().between(1, 2_000))
                        .map(n -> new Attempts(max, n)));
    }

    /** As the runner builds it: {@code maxAttempts} and {@code retryDelay} from the consumer's settings. */
    private static DeliveryDecision decision(int maxAttempts, Duration retryDelay) {
        return DeliveryDecision.of(
                new ConsumerSettings("c", "q", "q.dlq", 1, 1, maxAttempts, retryDelay, Duration.ofSeconds(1)));
    }

    // --- what arrives

    @Property
    void aDeliveryThatBreaksTheContractIsDeadLetteredAtOnceNamingTheRule(
            @ForAll WireContract.Rule rule,
            @ForAll @StringLength(max = 80) String detail,
            @ForAll @IntRange(min = 1, max = 1_000) int maxAttempts) {
        assertEquals(
                new DeadLetter("contract/" + rule.id() + ": " + detail, 1),
                decision(maxAttempts, DELAY).contractBroken(new WireContract.Violation(rule, detail)));
    }

    @Property
    void aCommittedStepIsAckedAsWhatItDidUnlessItsAggregatesNextVersionWaits(
            @ForAll Result result, @ForAll boolean successorHeld) {
        Verdict verdict = decision(5, DELAY).afterStep(new Outcome(result, successorHeld));
        assertEquals(successorHeld ? new ApplyHeldSuccessors(result) : new Ack(result), verdict);
    }

    // --- a failed step

    @Example
    void aNonRetryableFailureIsDeadLetteredAtOnceWithItsMessageWhateverTheAttemptsLeft() {
        DeliveryDecision generous = decision(1_000, DELAY);
        assertEquals(
                new DeadLetter("v2 breaks its contract", 1),
                generous.afterFailure(new NonRetryableMessageException("v2 breaks its contract")));
        assertEquals(
                new DeadLetter("NonRetryableMessageException", 1),
                generous.afterFailure(new NonRetryableMessageException(null)));
    }

    @Example
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

    @Property
    void aCountedFailureIsRequeuedAfterRetryDelayTimesItsAttemptsUntilTheLastDeadLettersIt(
            @ForAll("attempts") Attempts limit, @ForAll @LongRange(min = 0, max = 60_000) long retryDelayMillis) {
        int maxAttempts = limit.maxAttempts();
        int attempts = limit.attempts();
        Duration retryDelay = Duration.ofMillis(retryDelayMillis);
        Verdict verdict = decision(maxAttempts, retryDelay).afterCount(FAILED, new Counted(attempts));
        if (attempts < maxAttempts) {
            assertEquals(new Requeue(Duration.ofMillis(retryDelayMillis * attempts)), verdict);
        } else {
            assertEquals(new DeadLetter(FAILED.reason(), attempts), verdict, "dead-lettered with the attempts counted");
        }
        Statistics.label("verdict").collect(verdict.getClass().getSimpleName());
        Statistics.label("against the limit").collect(limit.against());
        Statistics.label("against the limit").coverage(c -> {
            c.check("the last before").percentage(p -> p > 5);
            c.check("at").percentage(p -> p > 5);
        });
    }

    @Example
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

    @Example
    void withOneAttemptTheFirstFailureDeadLettersAndWithTwoItIsRequeuedOnce() {
        assertEquals(new DeadLetter(FAILED.reason(), 1), decision(1, DELAY).afterCount(FAILED, new Counted(1)));
        assertEquals(new Requeue(DELAY), decision(2, DELAY).afterCount(FAILED, new Counted(1)));
        assertEquals(new DeadLetter(FAILED.reason(), 2), decision(2, DELAY).afterCount(FAILED, new Counted(2)));
    }

    /** A message that fails every time, as the runner meets it delivery after delivery. */
    @Property
    void aMessageThatAlwaysFailsIsTriedMaxAttemptsTimesThenDeadLettered(
            @ForAll @IntRange(min = 1, max = 200) int maxAttempts,
            @ForAll @LongRange(min = 0, max = 1_000) long retryDelayMillis) {
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
    }

    @Property
    void aFailureThatCannotBeCountedForNowIsRequeuedAfterOnePauseAndOneThatNeverCanGoesAtOnce(
            @ForAll @IntRange(min = 1, max = 1_000) int maxAttempts,
            @ForAll @LongRange(min = 0, max = 60_000) long retryDelayMillis,
            @ForAll @StringLength(min = 1, max = 40) String error) {
        DeliveryDecision d = decision(maxAttempts, Duration.ofMillis(retryDelayMillis));
        assertEquals(
                new Requeue(Duration.ofMillis(retryDelayMillis)),
                d.afterCount(FAILED, new NotCounted(true, error)),
                "uncounted: it spends no attempt, and its pause does not grow");
        assertEquals(
                new DeadLetter(FAILED.reason() + " (and its failure cannot be counted: " + error + ")", 1),
                d.afterCount(FAILED, new NotCounted(false, error)),
                "unbounded retries are never risked");
    }

    /** Held messages are tried again in place (not requeued) under the same rule as deliveries. */
    @Property
    void theHeldMessagesRuleIsTheDeliveriesRule(
            @ForAll("attempts") Attempts limit, @ForAll @LongRange(min = 0, max = 60_000) long retryDelayMillis) {
        int maxAttempts = limit.maxAttempts();
        int attempts = limit.attempts();
        DeliveryDecision d = decision(maxAttempts, Duration.ofMillis(retryDelayMillis));
        Verdict delivery = d.afterCount(FAILED, new Counted(attempts));
        assertEquals(delivery instanceof DeadLetter, d.spent(attempts));
        if (delivery instanceof Requeue r) {
            assertEquals(r.after(), d.pauseAfter(attempts));
        }
    }

    // --- held successors

    @Property
    void appliedSuccessorsAckTheDeliveryAndOnesThatFailedForGoodDoToo(
            @ForAll Result counted, @ForAll @StringLength(max = 40) String reason) {
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
    }

    @Property
    void successorsThatFailedForNowAreRetriedThroughTheirPredecessorWhileItsAttemptsLast(
            @ForAll Result counted,
            @ForAll("attempts") Attempts limit,
            @ForAll @LongRange(min = 0, max = 60_000) long retryDelayMillis) {
        int maxAttempts = limit.maxAttempts();
        int attempts = limit.attempts();
        DeliveryDecision d = decision(maxAttempts, Duration.ofMillis(retryDelayMillis));
        CountSuccessorsFailure failure = new CountSuccessorsFailure(counted, "StatementRefusedException: timeout");
        Verdict verdict = d.afterSuccessorsCount(failure, new Counted(attempts));
        assertEquals(
                attempts < maxAttempts ? new Requeue(Duration.ofMillis(retryDelayMillis * attempts)) : new Ack(counted),
                verdict,
                "the predecessor stays applied: at the limit it is acked, never dead-lettered");
        assertEquals(
                new Ack(counted),
                d.afterSuccessorsCount(failure, new NotCounted(true, "again")),
                "a count that failed too cannot bound the retries: acked");
    }

    // --- settling

    @Example
    void aDeadLetterTheBrokerDidNotConfirmIsRequeuedAndAnEscapedErrorIsDeadLettered() {
        DeliveryDecision d = decision(5, DELAY);
        assertEquals(new Requeue(DELAY), d.notDeadLettered());
        assertEquals(
                new DeadLetter("consumer error: IllegalStateException: lost", 1),
                d.escaped(new IllegalStateException("lost")));
    }

    // --- per-aggregate order

    @Property
    void anOrderedMessageIsAppliedOnlyAsItsAggregatesNextVersion(
            @ForAll @LongRange(min = 0, max = 1L << 53) long applied, @ForAll @IntRange(min = -3, max = 3) int ahead) {
        Assume.that(applied + ahead >= 1);
        Placement expected = ahead <= 0 ? Placement.STALE : ahead == 1 ? Placement.APPLY : Placement.HOLD;
        assertEquals(expected, DeliveryDecision.placement(applied + ahead, applied));
        Statistics.collect(expected);
    }

    @Property
    void anyVersionFarAheadIsHeldAndAnyAtOrBehindIsStale(
            @ForAll @LongRange(min = 1) long version, @ForAll @LongRange(min = 0) long applied) {
        Placement p = DeliveryDecision.placement(version, applied);
        if (version <= applied) {
            assertEquals(Placement.STALE, p);
        } else {
            assertEquals(version - applied == 1 ? Placement.APPLY : Placement.HOLD, p);
        }
    }

    @Example
    void aNewAggregateAppliesItsFirstVersionAndHoldsItsSecond() {
        assertEquals(Placement.APPLY, DeliveryDecision.placement(1, 0));
        assertEquals(Placement.HOLD, DeliveryDecision.placement(2, 0));
        assertEquals(Placement.STALE, DeliveryDecision.placement(Long.MAX_VALUE, Long.MAX_VALUE));
    }
}
