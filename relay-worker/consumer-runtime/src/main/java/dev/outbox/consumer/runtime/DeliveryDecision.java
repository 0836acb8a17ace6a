package dev.outbox.consumer.runtime;

import com.rabbitmq.client.ShutdownSignalException;
import dev.outbox.consumer.NonRetryableMessageException;
import dev.outbox.messaging.FailureDescriptions;
import java.time.Duration;

/**
 * What a delivery comes to, decided from facts alone: no channel, no database, no clock. The
 * runner gathers the facts (it checks the wire contract, runs the step, counts a failure, applies
 * held successors) and executes the verdicts ({@link Settlement}); every rule about which
 * delivery is acked, requeued or dead-lettered, and after how many attempts, is here.
 *
 * <p>A delivery is decided in stages, because some facts cost a transaction and are fetched only
 * when a verdict asks for them: a {@link Verdict} either settles the delivery ({@link Ack},
 * {@link Requeue}, {@link DeadLetter}) or names the fact the runner fetches before it asks again
 * ({@link CountFailure}, {@link ApplyHeldSuccessors}, {@link CountSuccessorsFailure}):
 *
 * <pre>
 *   contract broken ............................................ DeadLetter(rule, 1)
 *   step committed ─► successor held? ─► ApplyHeldSuccessors ─► applied ─► Ack
 *                   │                                         ├ held one not dead-lettered ─► Requeue(delay)
 *                   │                                         ├ refused, conflict ─► CountSuccessorsFailure
 *                   │                                         │     └─► attempts left ? Requeue(delay × n) : Ack
 *                   │                                         └ permanent error ─► Ack (they stay held)
 *                   └ no ─► Ack(applied | duplicate | held | stale)
 *   step failed ─► NonRetryableMessageException ................. DeadLetter(reason, 1)
 *               └ otherwise ─► CountFailure ─► n &lt; maxAttempts ? Requeue(delay × n) : DeadLetter(reason, n)
 *                                           ├ not counted, for now ─► Requeue(delay)
 *                                           └ not countable ─► DeadLetter(reason, 1)
 * </pre>
 *
 * The database being away is no fact here: the runner waits it out with the delivery in hand
 * ({@link DatabaseWait}) and only then has a fact to decide on. Whether an ordered message is
 * applied, held or stale is decided in the step's own transaction, under its aggregate's position
 * lock, by {@link #placement}.
 */
final class DeliveryDecision {

    /** What becomes of a delivery, or the one fact still needed to say. */
    sealed interface Verdict
            permits Ack, Requeue, DeadLetter, CountFailure, ApplyHeldSuccessors, CountSuccessorsFailure {}

    /** Acked; counted as what the step did with it (applied, duplicate, held or stale). */
    record Ack(IdempotentProcessor.Result counted) implements Verdict {}

    /** Given back to the broker (nack with requeue) after {@code after}: a requeued message comes straight back. */
    record Requeue(Duration after) implements Verdict {}

    /** Forwarded, confirmed, to the dead-letter queue with the reason and the attempts it took, then acked. */
    record DeadLetter(String reason, int attempts) implements Verdict {}

    /** The step failed and may succeed another time: its failure is counted (in a transaction of its own) first. */
    record CountFailure(String reason) implements Verdict {}

    /** The step committed and the aggregate's next version is held: it is applied before the delivery is acked. */
    record ApplyHeldSuccessors(IdempotentProcessor.Result counted) implements Verdict {}

    /** Committed, but its held successors failed for a reason that may pass: counted against this message first. */
    record CountSuccessorsFailure(IdempotentProcessor.Result counted, String reason) implements Verdict {}

    /** What counting a failure came to. */
    sealed interface Count permits Counted, NotCounted {}

    /** The attempts so far, this one included. */
    record Counted(int attempts) implements Count {}

    /** The count itself failed; {@code mayPass} when the same count may succeed if tried again. */
    record NotCounted(boolean mayPass, String error) implements Count {}

    /** What applying an aggregate's held successors came to. */
    sealed interface Successors permits SuccessorsApplied, HeldNotDeadLettered, SuccessorsFailed {}

    /** Each was applied (or dead-lettered alone) until none was next. */
    record SuccessorsApplied() implements Successors {}

    /** A held message that keeps failing could not be forwarded to the dead-letter queue. */
    record HeldNotDeadLettered(String detail) implements Successors {}

    /** A database error other than an outage; {@code mayPass} for a refusal or a conflict of the moment. */
    record SuccessorsFailed(boolean mayPass, String reason) implements Successors {}

    /** Where an ordered message stands against its aggregate's applied version. */
    enum Placement {
        /** The next version: applied now. */
        APPLY,
        /** A later version than the next: held until its predecessor is applied. */
        HOLD,
        /** This version or an older one is applied already: acknowledged without effect. */
        STALE
    }

    private final int maxAttempts;
    private final Duration retryDelay;

    DeliveryDecision(int maxAttempts, Duration retryDelay) {
        this.maxAttempts = maxAttempts;
        this.retryDelay = retryDelay;
    }

    static DeliveryDecision of(ConsumerSettings settings) {
        return new DeliveryDecision(settings.maxAttempts(), settings.retryDelay());
    }

    /** A delivery that breaks the wire contract can never be processed: it goes at once, no handler sees it. */
    DeadLetter contractBroken(WireContract.Violation violation) {
        return new DeadLetter(violation.reason(), 1);
    }

    /** The step (dedupe, ordering, the effect) committed. */
    Verdict afterStep(IdempotentProcessor.Outcome outcome) {
        return outcome.successorHeld() ? new ApplyHeldSuccessors(outcome.result()) : new Ack(outcome.result());
    }

    /**
     * The step threw (and not because the database is away): a {@link NonRetryableMessageException}
     * goes at once; anything else, a handler's bug or a statement the database refused included,
     * is counted and retried.
     */
    Verdict afterFailure(Throwable cause) {
        return cause instanceof NonRetryableMessageException
                ? new DeadLetter(describe(cause), 1)
                : new CountFailure(describe(cause));
    }

    /**
     * The failure was counted, or could not be. Retried after {@code retryDelay × attempts} while
     * attempts are left, dead-lettered at the last. A count that failed for now is requeued
     * uncounted (after {@code retryDelay}); one that can never be made could not bound the
     * retries, so the message goes now.
     */
    Verdict afterCount(CountFailure failure, Count count) {
        if (count instanceof NotCounted not) {
            return not.mayPass()
                    ? new Requeue(retryDelay)
                    : new DeadLetter(failure.reason() + " (and its failure cannot be counted: " + not.error() + ")", 1);
        }
        int attempts = ((Counted) count).attempts();
        return spent(attempts) ? new DeadLetter(failure.reason(), attempts) : new Requeue(pauseAfter(attempts));
    }

    /**
     * The delivery committed and its held successors were tried. Its redelivery would be a
     * duplicate that tries them again: worth it when they could not be dead-lettered or failed
     * for now (counted, bounded); a permanent error would fail the same way on every redelivery,
     * so the delivery is acked and they stay held.
     */
    Verdict afterSuccessors(ApplyHeldSuccessors applying, Successors successors) {
        if (successors instanceof HeldNotDeadLettered) {
            return notDeadLettered();
        }
        if (successors instanceof SuccessorsFailed failed && failed.mayPass()) {
            return new CountSuccessorsFailure(applying.counted(), failed.reason());
        }
        return new Ack(applying.counted());
    }

    /** Their failure was counted against this message: requeued while attempts are left, else acked. */
    Verdict afterSuccessorsCount(CountSuccessorsFailure failure, Count count) {
        return count instanceof Counted c && !spent(c.attempts())
                ? new Requeue(pauseAfter(c.attempts()))
                : new Ack(failure.counted());
    }

    /** A dead letter the broker did not confirm: the delivery is kept, requeued to be tried again. */
    Requeue notDeadLettered() {
        return new Requeue(retryDelay);
    }

    /** What escaped the handling above to the callback boundary: dead-lettered with the error. */
    DeadLetter escaped(Throwable cause) {
        return new DeadLetter("consumer error: " + describe(cause), 1);
    }

    /** True when {@code attempts} failures (this one included) leave no attempt: the message is given up. */
    boolean spent(int attempts) {
        return attempts >= maxAttempts;
    }

    /** The pause before a message is tried again after {@code attempts} failures. */
    Duration pauseAfter(int attempts) {
        return retryDelay.multipliedBy(attempts);
    }

    /** Failures of one message before it is given up. */
    int maxAttempts() {
        return maxAttempts;
    }

    /** An ordered message's {@code version} against the {@code applied} version of its aggregate. */
    static Placement placement(long version, long applied) {
        if (version <= applied) {
            return Placement.STALE;
        }
        return version > applied + 1 ? Placement.HOLD : Placement.APPLY;
    }

    /** A failure as a dead-letter reason and a line in {@code consumer_failures}. */
    static String describe(Throwable t) {
        if (t.getCause() instanceof ShutdownSignalException sse) {
            return FailureDescriptions.describe(sse);
        }
        if (t instanceof NonRetryableMessageException) {
            return t.getMessage() == null ? "NonRetryableMessageException" : t.getMessage();
        }
        return t.getClass().getSimpleName() + ": " + t.getMessage();
    }
}
