package dev.outbox.consumer.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;

import dev.outbox.consumer.NonRetryableMessageException;
import dev.outbox.consumer.runtime.DeliveryMutations.Wire;
import dev.outbox.consumer.runtime.FakeChannelRunner.ScriptedProcessor;
import dev.outbox.consumer.runtime.IdempotentProcessor.Outcome;
import dev.outbox.consumer.runtime.IdempotentProcessor.Result;
import dev.outbox.persistence.DataAccessException;
import dev.outbox.persistence.DatabaseUnavailableException;
import dev.outbox.persistence.StatementRefusedException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;
import org.quicktheories.generators.SourceDSL;

/**
 * The runner executing {@link DeliveryDecision}'s verdicts on a channel, on a fake connection
 * with a scripted step and failure counter ({@link FakeChannelRunner}): which deliveries are
 * acked, requeued or forwarded to the dead-letter queue, with what reason and attempts, and what
 * is counted. The verdicts alone are {@link DeliveryDecisionTest}'s; with a real broker and
 * database, {@link ConsumerFrameworkIT}'s. The generated properties run on QuickTheories: a failure
 * prints its shrunk counterexample and the seed, which {@code -DQT_SEED=<seed>} replays.
 */
class ConsumerRunnerVerdictTest {
    private static final List<String> DEAD_LETTERED_AND_ACKED = List.of("dead letter", "ack 7");
    private static final List<String> REQUEUED = List.of("nack 7 requeue");

    private static long counterOf(ConsumerStats stats, Result result) {
        return switch (result) {
            case APPLIED -> stats.applied();
            case DUPLICATE -> stats.duplicates();
            case HELD -> stats.held();
            case STALE -> stats.stale();
        };
    }

    /** One example, whose fake runner may throw a checked exception: any throwable falsifies it. */
    private static void example(Executable body) {
        try {
            body.execute();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    @Test
    void aCommittedDeliveryIsAckedOnceAndCountedAsWhatItsStepDid() {
        qt().withExamples(1_000)
                .forAll(Generate.enumValues(Result.class))
                .checkAssert(result -> example(() -> {
                    try (FakeChannelRunner f = new FakeChannelRunner(5)) {
                        f.processor.step = m -> Outcome.of(result);
                        f.deliver(FakeChannelRunner.valid(7));
                        assertEquals(List.of("ack 7"), f.calls);
                        assertEquals(1, counterOf(f.runner.stats(), result));
                        assertEquals(0, f.runner.stats().failures());
                    }
                }));
    }

    @Test
    void everyDeliveryThatBreaksTheContractIsDeadLetteredAtOnceAndNoStepRuns() {
        Map<String, Integer> byRule = new TreeMap<>();
        qt().withExamples(200)
                .forAll(DeliveryMutations.all(), DeliveryMutations.validCaptures())
                .checkAssert((mutation, valid) -> example(() -> {
                    Wire broken = mutation.applyTo(valid);
                    try (FakeChannelRunner f = new FakeChannelRunner(5)) {
                        f.deliver(FakeChannelRunner.of(7, false, broken));
                        assertEquals(DEAD_LETTERED_AND_ACKED, f.calls, mutation::toString);
                        assertTrue(
                                f.reasonOf(0)
                                        .startsWith(
                                                "contract/" + mutation.breaks().id() + ": "),
                                f.reasonOf(0));
                        assertEquals(1, f.attemptsOf(0));
                        assertEquals(0, f.processor.steps.get(), "no handler sees it");
                        assertEquals(List.of(), f.counter.counted, "nor is it counted: it never had an attempt");
                        assertEquals(1, f.runner.stats().contractViolations(mutation.breaks()));
                    }
                    byRule.merge(mutation.breaks().id(), 1, Integer::sum);
                }));
        System.out.println("[ConsumerRunnerVerdictTest] contract violations dead-lettered, by rule: " + byRule);
    }

    @Test
    void aMissingMessageIdIsDeadLetteredUnderAPlaceholderAndAMalformedOneUnderItsOwn() throws Exception {
        Wire valid = DeliveryMutations.validCapture();
        try (FakeChannelRunner f = new FakeChannelRunner(5)) {
            f.deliver(FakeChannelRunner.of(
                    7,
                    false,
                    valid.props(valid.props().builder().messageId(null).build())));
            assertEquals(DEAD_LETTERED_AND_ACKED, f.calls);
            assertEquals("contract/message-id: no messageId: it cannot be deduplicated", f.reasonOf(0));
            assertEquals("no-message-id", f.deadLetters.get(0).getMessageId());
            assertEquals(List.of(), f.counter.deadLettered, "no id to note it under in consumer_failures");
        }
        try (FakeChannelRunner f = new FakeChannelRunner(5)) {
            f.deliver(FakeChannelRunner.of(
                    7,
                    false,
                    valid.props(valid.props().builder().messageId("42").build())));
            assertEquals(DEAD_LETTERED_AND_ACKED, f.calls);
            assertEquals("contract/message-id: messageId '42' is not a UUID (an outbox row id)", f.reasonOf(0));
            assertEquals("42", f.deadLetters.get(0).getMessageId());
        }
    }

    @Test
    void aNonRetryableFailureIsDeadLetteredAtOnceWithItsMessageAndIsNeverCounted() throws Exception {
        try (FakeChannelRunner f = new FakeChannelRunner(1_000)) {
            f.processor.step = m -> {
                throw new NonRetryableMessageException("names an order that cannot exist");
            };
            f.deliver(FakeChannelRunner.valid(7));
            assertEquals(DEAD_LETTERED_AND_ACKED, f.calls);
            assertEquals("names an order that cannot exist", f.reasonOf(0));
            assertEquals(1, f.attemptsOf(0));
            assertEquals(List.of(), f.counter.counted);
            assertEquals(1, f.counter.deadLettered.size(), "noted in consumer_failures");
            assertEquals(1, f.runner.stats().deadLettered());
        }
    }

    /** A consumer's {@code maxAttempts} and the attempts its counter reports, half within two of the limit. */
    record Attempts(int maxAttempts, int attempts) {}

    static Gen<Attempts> attempts() {
        return ints(1, 20)
                .flatMap(max -> Generate.oneOf(ints(Math.max(1, max - 2), max + 2), ints(1, 40))
                        .map(n -> new Attempts(max, n)));
    }

    /** Whole numbers from {@code min} to {@code max}, one in ten an end of the range or the number next to it. */
    private static Gen<Integer> ints(int min, int max) {
        return SourceDSL.integers()
                .between(min, max)
                .mix(Generate.pick(List.of(min, Math.min(min + 1, max), Math.max(max - 1, min), max)), 10);
    }

    /**
     * Only the consumer's own count bounds a failing message: the broker's redelivery flag and a
     * quorum queue's {@code x-delivery-count} (raised by channel closes and crashes too) do not.
     */
    @Test
    void aFailingDeliveryIsRequeuedUntilItsOwnCountReachesMaxAttemptsWhateverTheBrokerCounted() {
        Map<String, Integer> outcomes = new TreeMap<>();
        Gen<Long> brokerDeliveries =
                SourceDSL.longs().between(0, 10_000).mix(Generate.pick(List.of(0L, 1L, 10_000L)), 10);
        qt().withExamples(300)
                .forAll(attempts(), Generate.booleans(), brokerDeliveries)
                .checkAssert((limit, redelivered, deliveries) -> example(() -> {
                    try (FakeChannelRunner f = new FakeChannelRunner(limit.maxAttempts())) {
                        f.processor.step = m -> {
                            throw new IllegalStateException("boom");
                        };
                        f.counter.count = reason -> limit.attempts();
                        f.deliver(FakeChannelRunner.delivery(7, redelivered, Map.of("x-delivery-count", deliveries)));
                        boolean lastAttempt = limit.attempts() >= limit.maxAttempts();
                        assertEquals(lastAttempt ? DEAD_LETTERED_AND_ACKED : REQUEUED, f.calls, limit::toString);
                        assertEquals(List.of("IllegalStateException: boom"), f.counter.counted);
                        assertEquals(1, f.runner.stats().failures());
                        if (lastAttempt) {
                            assertEquals("IllegalStateException: boom", f.reasonOf(0));
                            assertEquals(
                                    limit.attempts(),
                                    f.attemptsOf(0),
                                    "the dead letter says how many attempts it took");
                        }
                        outcomes.merge(lastAttempt ? "dead-lettered" : "requeued", 1, Integer::sum);
                    }
                }));
        System.out.println("[ConsumerRunnerVerdictTest] failing deliveries " + outcomes);
    }

    @Test
    void theFirstFailureIsRequeuedAndTheLastAttemptDeadLettersWithTheSameDeliveryEachTime() throws Exception {
        AtomicInteger attempts = new AtomicInteger();
        try (FakeChannelRunner f = new FakeChannelRunner(3)) {
            f.processor.step = m -> {
                throw new IllegalStateException("boom");
            };
            f.counter.count = reason -> attempts.incrementAndGet();
            f.deliver(FakeChannelRunner.delivery(7, false, Map.of()));
            f.deliver(FakeChannelRunner.delivery(7, true, Map.of("x-delivery-count", 1L)));
            f.deliver(FakeChannelRunner.delivery(7, true, Map.of("x-delivery-count", 2L)));
            assertEquals(List.of("nack 7 requeue", "nack 7 requeue", "dead letter", "ack 7"), f.calls);
            assertEquals(3, f.attemptsOf(0));
            assertEquals(2, f.runner.stats().requeued());
        }
    }

    @Test
    void aDeadLetterTheBrokerDoesNotConfirmIsRequeuedNotAcked() throws Exception {
        try (FakeChannelRunner f = new FakeChannelRunner(5)) {
            f.confirmDeadLetters = false;
            f.processor.step = m -> {
                throw new NonRetryableMessageException("bad");
            };
            f.deliver(FakeChannelRunner.valid(7));
            assertEquals(List.of("dead letter", "nack 7 requeue"), f.calls, "kept until a copy is safe");
            assertEquals(0, f.runner.stats().deadLettered());
            assertEquals(List.of(), f.counter.deadLettered);
        }
    }

    @Test
    void aFailureThatCannotBeCountedForNowIsRequeuedAndOneThatNeverCanIsDeadLetteredAtOnce() throws Exception {
        try (FakeChannelRunner f = new FakeChannelRunner(5)) {
            f.processor.step = m -> {
                throw new IllegalStateException("boom");
            };
            f.counter.count = reason -> {
                throw new StatementRefusedException("statement timeout", null);
            };
            f.deliver(FakeChannelRunner.valid(7));
            assertEquals(REQUEUED, f.calls);

            f.calls.clear();
            f.counter.count = reason -> {
                throw new DataAccessException("column does not exist", null);
            };
            f.deliver(FakeChannelRunner.valid(7));
            assertEquals(DEAD_LETTERED_AND_ACKED, f.calls);
            assertEquals(
                    "IllegalStateException: boom (and its failure cannot be counted: column does not exist)",
                    f.reasonOf(0));
            assertEquals(1, f.attemptsOf(0));
        }
    }

    @Test
    void aDatabaseOutageIsWaitedOutWithTheDeliveryInHandAndSpendsNoAttempt() throws Exception {
        AtomicInteger tries = new AtomicInteger();
        try (FakeChannelRunner f = new FakeChannelRunner(1)) {
            f.processor.step = m -> {
                if (tries.incrementAndGet() == 1) {
                    throw new DatabaseUnavailableException("connection refused", null);
                }
                return Outcome.of(Result.APPLIED);
            };
            f.deliver(FakeChannelRunner.valid(7));
            assertEquals(List.of("ack 7"), f.calls, "one attempt allowed, none spent");
            assertEquals(List.of(), f.counter.counted);
            assertEquals(1, f.runner.stats().databaseWaits());
        }
    }

    @Test
    void aDeliveryWaitingForTheDatabaseWhenItsChannelClosesIsLeftToTheBroker() throws Exception {
        try (FakeChannelRunner f = new FakeChannelRunner(5)) {
            f.processor.step = m -> {
                throw new DatabaseUnavailableException("connection refused", null);
            };
            f.closeConsumerChannel();
            f.deliver(FakeChannelRunner.valid(7));
            assertEquals(List.of(), f.calls, "neither acked nor requeued: the closed channel gives it back");
            assertEquals(List.of(), f.counter.counted);
        }
    }

    @Test
    void heldSuccessorsAreAppliedBeforeTheirPredecessorIsAcked() throws Exception {
        try (FakeChannelRunner f = new FakeChannelRunner(5)) {
            f.processor.step = m -> new Outcome(Result.APPLIED, true);
            f.processor.held.add(ScriptedProcessor.heldV3("o-1"));
            f.deliver(FakeChannelRunner.valid(7));
            assertEquals(List.of("ack 7"), f.calls);
            assertEquals(1, f.runner.stats().applied());
            assertEquals(1, f.runner.stats().heldApplied());
        }
    }

    @Test
    void successorsThatFailForNowRequeueTheirPredecessorUntilItsAttemptsAreSpentThenItIsAcked() throws Exception {
        try (FakeChannelRunner f = new FakeChannelRunner(3)) {
            f.processor.step = m -> new Outcome(Result.DUPLICATE, true);
            f.processor.held.add(new StatementRefusedException("statement timeout", null));
            f.counter.count = reason -> 2;
            f.deliver(FakeChannelRunner.valid(7));
            assertEquals(REQUEUED, f.calls);
            assertEquals(
                    List.of("held successors: StatementRefusedException: statement timeout"),
                    f.counter.counted,
                    "counted against the predecessor");

            f.calls.clear();
            f.processor.held.add(new StatementRefusedException("statement timeout", null));
            f.counter.count = reason -> 3;
            f.deliver(FakeChannelRunner.valid(7));
            assertEquals(List.of("ack 7"), f.calls, "the predecessor stays applied: acked, never dead-lettered");
            assertEquals(1, f.runner.stats().duplicates());
            assertEquals(2, f.runner.stats().deliveryErrors());
        }
    }

    @Test
    void successorsThatFailForGoodLeaveTheirPredecessorAckedAndUncounted() throws Exception {
        try (FakeChannelRunner f = new FakeChannelRunner(3)) {
            f.processor.step = m -> new Outcome(Result.APPLIED, true);
            f.processor.held.add(new DataAccessException("column h.body does not exist", null));
            f.deliver(FakeChannelRunner.valid(7));
            assertEquals(List.of("ack 7"), f.calls);
            assertEquals(List.of(), f.counter.counted);
        }
    }

    @Test
    void aHeldMessageThatCannotBeDeadLetteredRequeuesThePredecessorThatFoundIt() throws Exception {
        try (FakeChannelRunner f = new FakeChannelRunner(3)) {
            f.processor.step = m -> new Outcome(Result.APPLIED, true);
            f.processor.held.add(ScriptedProcessor.heldV3("o-1"));
            f.processor.heldFails = new NonRetryableMessageException("v3 breaks its contract");
            f.confirmDeadLetters = false;
            f.deliver(FakeChannelRunner.valid(7));
            assertEquals(List.of("dead letter", "nack 7 requeue"), f.calls, "the held copy was offered, not confirmed");
            assertEquals(true, f.deadLetters.get(0).getHeaders().get("x-dead-letter-held"));
        }
    }

    @Test
    void whatEscapesTheFrameworksHandlingIsDeadLetteredAsAConsumerError() throws Exception {
        try (FakeChannelRunner f = new FakeChannelRunner(5)) {
            f.processor.step = m -> {
                throw new IllegalStateException("boom");
            };
            f.counter.count = reason -> {
                throw new IllegalArgumentException("a counter's bug");
            };
            f.deliver(FakeChannelRunner.valid(7));
            assertEquals(DEAD_LETTERED_AND_ACKED, f.calls);
            assertEquals("consumer error: IllegalArgumentException: a counter's bug", f.reasonOf(0));
            assertEquals(1, f.runner.stats().deliveryErrors());
        }
    }
}
