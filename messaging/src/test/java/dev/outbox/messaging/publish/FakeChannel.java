package dev.outbox.messaging.publish;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.AlreadyClosedException;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmCallback;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ReturnListener;
import com.rabbitmq.client.ShutdownListener;
import com.rabbitmq.client.ShutdownSignalException;
import com.rabbitmq.client.impl.AMQImpl;
import com.rabbitmq.client.impl.Frame;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;

/**
 * A channel without a broker, for unit tests of {@link ConfirmPublisher}: it records what is
 * published and lets the test play the broker's frames (ack, nack, return, close) in any order,
 * on the test's own thread. Only the methods the publisher uses answer; any other call fails the
 * test, so the fake cannot silently diverge from what the publisher really does.
 *
 * <p>{@code basicPublish} does what amqp-client's {@code ChannelN} does, in its order: it takes
 * the next publish sequence number first, then encodes the method and content-header frames with
 * the client's own encoders (so a short string over 255 bytes or a header value without an AMQP
 * type throws {@link IllegalArgumentException} here as it does there), checks the header frame
 * against {@code frame_max}, and only then "sends". The broker numbers its confirms by what it
 * received: {@link #published} in order, delivery tag = position + 1. A message the client
 * refused therefore leaves the client's sequence one ahead of the broker's, exactly as on a real
 * channel ({@code ConfirmPublisherIT} checks that against RabbitMQ).
 */
final class FakeChannel {
    private long nextSeqNo = 1;
    private int frameMax = 131_072;
    private boolean open = true;
    private ShutdownSignalException closeReason;
    private Exception failNextPublish;
    private ReturnListener onReturn;
    private ConfirmCallback onAck;
    private ConfirmCallback onNack;
    private ShutdownListener onShutdown;
    final List<String> published = new ArrayList<>();

    final Channel channel = (Channel) Proxy.newProxyInstance(
            Channel.class.getClassLoader(),
            new Class<?>[] {Channel.class},
            (proxy, method, args) -> switch (method.getName()) {
                case "getNextPublishSeqNo" -> nextSeqNo;
                case "basicPublish" -> {
                    nextSeqNo++; // ChannelN takes the number before it encodes or writes anything
                    if (!open) {
                        // then finds the channel closed: AMQChannel.ensureIsOpen
                        throw new AlreadyClosedException(closeReason);
                    }
                    if (failNextPublish != null) {
                        Exception e = failNextPublish;
                        failNextPublish = null;
                        throw e;
                    }
                    AMQP.BasicProperties props = (AMQP.BasicProperties) args[3];
                    byte[] body = (byte[]) args[4];
                    new AMQImpl.Basic.Publish(0, (String) args[0], (String) args[1], (Boolean) args[2], false)
                            .toFrame(1);
                    Frame header = props.toFrame(1, body.length);
                    if (header.size() > frameMax) {
                        throw new IllegalArgumentException(
                                "Content headers exceeded max frame size: " + header.size() + " > " + frameMax);
                    }
                    published.add(props.getMessageId());
                    yield null;
                }
                case "addReturnListener" -> {
                    onReturn = (ReturnListener) args[0];
                    yield null;
                }
                case "addConfirmListener" -> {
                    onAck = (ConfirmCallback) args[0];
                    onNack = (ConfirmCallback) args[1];
                    yield null;
                }
                case "addShutdownListener" -> {
                    onShutdown = (ShutdownListener) args[0];
                    yield null;
                }
                case "confirmSelect" -> null;
                case "isOpen" -> open;
                case "abort" -> {
                    shutdown(new ShutdownSignalException(false, true, null, proxy));
                    yield null;
                }
                case "close" -> {
                    shutdown(new ShutdownSignalException(false, true, null, proxy));
                    yield null;
                }
                case "toString" -> "FakeChannel";
                case "hashCode" -> System.identityHashCode(proxy);
                case "equals" -> proxy == args[0];
                default -> throw new UnsupportedOperationException("FakeChannel." + method.getName());
            });

    final Connection connection = (Connection) Proxy.newProxyInstance(
            Connection.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            (proxy, method, args) -> switch (method.getName()) {
                case "createChannel" -> channel;
                case "getFrameMax" -> frameMax;
                case "toString" -> "FakeConnection";
                default -> throw new UnsupportedOperationException("FakeConnection." + method.getName());
            });

    /** The next basicPublish throws {@code e} after taking its sequence number, as the client would. */
    void failNextPublish(Exception e) {
        failNextPublish = e;
    }

    void frameMax(int bytes) {
        frameMax = bytes;
    }

    /** The client's next publish sequence number: one ahead of the broker's count after a refusal. */
    long nextSeqNo() {
        return nextSeqNo;
    }

    void ack(long seq, boolean multiple) throws IOException {
        onAck.handle(seq, multiple);
    }

    void nack(long seq, boolean multiple) throws IOException {
        onNack.handle(seq, multiple);
    }

    /** basic.return 312 NO_ROUTE for the message with this id. */
    void returnUnroutable(String messageId) throws IOException {
        onReturn.handleReturn(
                312,
                "NO_ROUTE",
                "orders.events",
                "no.binding",
                new AMQP.BasicProperties.Builder().messageId(messageId).build(),
                new byte[0]);
    }

    void shutdown(ShutdownSignalException cause) {
        if (open) {
            open = false;
            closeReason = cause;
            onShutdown.shutdownCompleted(cause);
        }
    }

    /**
     * The first half of a close the broker sends: amqp-client marks the channel closed and
     * releases its lock before it runs the shutdown listeners, so a publisher thread can find it
     * closed (and take a sequence number, then get {@code AlreadyClosedException}) in between.
     */
    void closedByBroker(ShutdownSignalException cause) {
        open = false;
        closeReason = cause;
    }

    /** The second half: the shutdown listeners run. */
    void listenersLearnOfTheClose() {
        onShutdown.shutdownCompleted(closeReason);
    }
}
