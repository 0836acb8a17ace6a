package dev.outbox.messaging.publish;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmCallback;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ReturnListener;
import com.rabbitmq.client.ShutdownListener;
import com.rabbitmq.client.ShutdownSignalException;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;

/**
 * A channel without a broker, for unit tests of {@link ConfirmPublisher}: it records what is
 * published and lets the test play the broker's frames (ack, nack, return, close) in any order,
 * on the test's own thread. Only the methods the publisher uses answer; any other call fails the
 * test, so the fake cannot silently diverge from what the publisher really does.
 */
final class FakeChannel {
    private long nextSeqNo = 1;
    private boolean open = true;
    private IOException failNextPublish;
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
                    if (failNextPublish != null) {
                        IOException e = failNextPublish;
                        failNextPublish = null;
                        throw e;
                    }
                    published.add(((AMQP.BasicProperties) args[3]).getMessageId());
                    nextSeqNo++;
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
                case "toString" -> "FakeConnection";
                default -> throw new UnsupportedOperationException("FakeConnection." + method.getName());
            });

    void failNextPublish(IOException e) {
        failNextPublish = e;
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
            onShutdown.shutdownCompleted(cause);
        }
    }
}
