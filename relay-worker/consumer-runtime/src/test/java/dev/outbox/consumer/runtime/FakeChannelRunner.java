package dev.outbox.consumer.runtime;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Consumer;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.Envelope;
import dev.outbox.consumer.InboundMessage;
import dev.outbox.consumer.MessageHandler;
import dev.outbox.consumer.runtime.DeliveryMutations.Wire;
import dev.outbox.consumer.runtime.IdempotentProcessor.Outcome;
import dev.outbox.consumer.runtime.IdempotentProcessor.Result;
import dev.outbox.persistence.consumer.HeldMessage;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link ConsumerRunner} on a fake connection, with a scripted step and failure counter: no
 * broker, no database. The connection answers only what the runner asks of it: its consumer
 * channel records acks and nacks, and each channel it opens to dead-letter records the copy it
 * publishes and confirms it (or not, {@link #confirmDeadLetters}). Deliveries go in through the
 * subscribed consumer, as the broker's would.
 */
final class FakeChannelRunner implements AutoCloseable {
    static final String QUEUE = RuntimeTestConsumer.QUEUE;
    static final String DLQ = QUEUE + ".dlq";
    private static final WireContract CONTRACT = WireContract.forQueue(QUEUE);

    /** What the runner did on its channels, in order: {@code ack 7}, {@code nack 7 requeue}, {@code dead letter}. */
    final List<String> calls = new CopyOnWriteArrayList<>();
    /** The properties of each copy published to the dead-letter queue. */
    final List<AMQP.BasicProperties> deadLetters = new CopyOnWriteArrayList<>();

    volatile boolean confirmDeadLetters = true;
    final ScriptedProcessor processor = new ScriptedProcessor();
    final ScriptedCounter counter = new ScriptedCounter();
    final ConsumerRunner runner;

    private final AtomicBoolean consumerChannelOpen = new AtomicBoolean(true);
    private volatile Consumer consumer;
    private volatile String consumerTag;

    FakeChannelRunner(int maxAttempts) {
        runner = ConsumerRunner.transactional(
                new ConsumerSettings("verdicts", QUEUE, DLQ, 1, 1, maxAttempts, Duration.ZERO, Duration.ofSeconds(1)),
                CONTRACT,
                processor,
                m -> {},
                counter);
        runner.start(connection());
    }

    /** A valid payment.captured (v2 of a new order) with delivery tag {@code tag}. */
    static Delivery valid(long tag) {
        return delivery(tag, false, Map.of());
    }

    /** A valid delivery with a redelivery flag and extra headers (a quorum queue's {@code x-delivery-count}, say). */
    static Delivery delivery(long tag, boolean redelivered, Map<String, Object> extraHeaders) {
        Wire w = DeliveryMutations.validCapture();
        Map<String, Object> headers = new HashMap<>(w.props().getHeaders());
        headers.putAll(extraHeaders);
        return of(
                tag,
                redelivered,
                new Wire(
                        w.exchange(),
                        w.routingKey(),
                        w.props().builder().headers(headers).build(),
                        w.body()));
    }

    static Delivery of(long tag, boolean redelivered, Wire w) {
        return new Delivery(new Envelope(tag, redelivered, w.exchange(), w.routingKey()), w.props(), w.body());
    }

    /** Hands the delivery to the runner as the broker does, on the consumer's channel. */
    void deliver(Delivery d) throws IOException {
        consumer.handleDelivery(consumerTag, d.getEnvelope(), d.getProperties(), d.getBody());
    }

    /** The consumer's channel closes (no shutdown signal: the runner finds out when it looks). */
    void closeConsumerChannel() {
        consumerChannelOpen.set(false);
    }

    String reasonOf(int deadLetter) {
        return String.valueOf(deadLetters.get(deadLetter).getHeaders().get("x-dead-letter-reason"));
    }

    Object attemptsOf(int deadLetter) {
        return deadLetters.get(deadLetter).getHeaders().get("x-dead-letter-attempts");
    }

    @Override
    public void close() {
        runner.close();
    }

    private Connection connection() {
        return proxy(Connection.class, (method, args) -> switch (method.getName()) {
            case "isOpen" -> true;
            case "createChannel" -> consumer == null ? consumerChannel() : deadLetterChannel();
            default -> none(method);
        });
    }

    private Channel consumerChannel() {
        return proxy(Channel.class, (method, args) -> switch (method.getName()) {
            case "isOpen" -> consumerChannelOpen.get();
            case "basicConsume" -> {
                consumerTag = (String) args[2];
                consumer = (Consumer) args[3];
                consumer.handleConsumeOk(consumerTag);
                yield consumerTag;
            }
            case "basicAck" -> record("ack " + args[0]);
            case "basicNack" -> record("nack " + args[0] + (Boolean.TRUE.equals(args[2]) ? " requeue" : " drop"));
            case "basicReject" -> record("reject " + args[0]);
            case "basicPublish" -> record("publish on the consumer's channel");
            default -> none(method);
        });
    }

    /** A channel of its own for each dead letter, as {@code ConfirmPublisher.publishAlone} opens it. */
    private Channel deadLetterChannel() {
        AtomicBoolean open = new AtomicBoolean(true);
        return proxy(Channel.class, (method, args) -> switch (method.getName()) {
            case "isOpen" -> open.get();
            case "close" -> {
                open.set(false);
                yield null;
            }
            case "basicPublish" -> {
                deadLetters.add((AMQP.BasicProperties) args[3]);
                yield record(args[1].equals(DLQ) ? "dead letter" : "publish to " + args[1]);
            }
            case "waitForConfirms" -> confirmDeadLetters;
            default -> none(method);
        });
    }

    private Object record(String call) {
        calls.add(call);
        return null;
    }

    @FunctionalInterface
    private interface Answer {
        Object answer(Method method, Object[] args) throws Exception;
    }

    private static <T> T proxy(Class<T> type, Answer answer) {
        return type.cast(Proxy.newProxyInstance(
                FakeChannelRunner.class.getClassLoader(),
                new Class<?>[] {type},
                (p, method, args) -> switch (method.getName()) {
                    case "hashCode" -> System.identityHashCode(p);
                    case "equals" -> p == args[0];
                    case "toString" -> "fake " + type.getSimpleName();
                    default -> answer.answer(method, args);
                }));
    }

    /** What a method of the fake answers when nothing is scripted: nothing, or zero. */
    private static Object none(Method method) {
        Class<?> t = method.getReturnType();
        if (t == boolean.class) {
            return false;
        }
        if (t == int.class) {
            return 0;
        }
        if (t == long.class) {
            return 0L;
        }
        return null;
    }

    /** The step's transaction, scripted; and the held successors it finds. */
    static final class ScriptedProcessor extends IdempotentProcessor {
        @FunctionalInterface
        interface Step {
            Outcome run(InboundMessage message) throws Exception;
        }

        volatile Step step = m -> Outcome.of(Result.APPLIED);
        /** What {@link #nextHeld} answers, in turn: a held message, or an exception to throw; then null. */
        final Queue<Object> held = new ConcurrentLinkedQueue<>();
        /** Thrown by {@link #applyHeld} when set. */
        volatile Exception heldFails;

        final AtomicInteger steps = new AtomicInteger();

        ScriptedProcessor() {
            super(null, null);
        }

        @Override
        public Outcome process(String consumer, InboundMessage message, MessageHandler handler, boolean inOrder)
                throws Exception {
            steps.incrementAndGet();
            return step.run(message);
        }

        @Override
        public HeldMessage nextHeld(String consumer, String aggregateType, String aggregateId) {
            Object next = held.poll();
            if (next instanceof RuntimeException e) {
                throw e;
            }
            return (HeldMessage) next;
        }

        @Override
        public boolean applyHeld(String consumer, HeldMessage message, MessageHandler handler) throws Exception {
            if (heldFails != null) {
                throw heldFails;
            }
            return true;
        }

        @Override
        public boolean discardHeld(String consumer, HeldMessage message) {
            return true;
        }

        static HeldMessage heldV3(String aggregateId) {
            return new HeldMessage(
                    "verdicts",
                    "order",
                    aggregateId,
                    3,
                    UUID.randomUUID().toString(),
                    "payment.captured",
                    1,
                    null,
                    "{}",
                    "{}".getBytes(StandardCharsets.UTF_8));
        }
    }

    /** The failure counter, scripted: what each count answers; and what it was asked. */
    static final class ScriptedCounter extends FailureCounter {
        @FunctionalInterface
        interface Count {
            int failed(String reason);
        }

        volatile Count count = reason -> 1;
        /** The reasons counted, in order. */
        final List<String> counted = new CopyOnWriteArrayList<>();
        /** The message ids noted as dead-lettered. */
        final List<String> deadLettered = new CopyOnWriteArrayList<>();

        ScriptedCounter() {
            super(null);
        }

        @Override
        public int failed(String consumer, String messageId, String error) {
            counted.add(error);
            return count.failed(error);
        }

        @Override
        public void deadLettered(String consumer, String messageId, String reason) {
            deadLettered.add(messageId);
        }
    }
}
