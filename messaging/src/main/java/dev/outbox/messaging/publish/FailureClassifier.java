package dev.outbox.messaging.publish;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.ShutdownSignalException;
import dev.outbox.kernel.outbox.ErrorCode;

/**
 * Maps broker outcomes to error codes from protocol facts only: AMQP reply codes, whether a
 * shutdown is a connection or a channel error, nack, timeout. Never from message text, which
 * differs between brokers and versions.
 */
public final class FailureClassifier {
    public static final int NOT_FOUND = 404;
    public static final int ACCESS_REFUSED = 403;
    public static final int NO_ROUTE = 312;
    public static final int NO_CONSUMERS = 313;
    public static final int PRECONDITION_FAILED = 406;
    /** {@code basic.publish}: class 60, method 40 (AMQP 0-9-1). */
    private static final int BASIC_CLASS = 60;

    private static final int PUBLISH_METHOD = 40;

    private FailureClassifier() {}

    /** A channel or connection shut down while messages were in flight. */
    public static ErrorCode classify(ShutdownSignalException cause) {
        if (cause.isHardError()) {
            return ErrorCode.CONNECTION_LOST;
        }
        if (cause.getReason() instanceof AMQP.Channel.Close close) {
            return switch (close.getReplyCode()) {
                case NOT_FOUND -> ErrorCode.EXCHANGE_NOT_FOUND;
                case ACCESS_REFUSED -> ErrorCode.ACCESS_REFUSED;
                // the broker refused a message it was given (RabbitMQ: a body over its
                // max_message_size): that message will be refused every time
                case PRECONDITION_FAILED ->
                    close.getClassId() == BASIC_CLASS && close.getMethodId() == PUBLISH_METHOD
                            ? ErrorCode.UNENCODABLE
                            : ErrorCode.CHANNEL_ERROR;
                default -> ErrorCode.CHANNEL_ERROR;
            };
        }
        // a channel shut down without a close method: its connection went away under it
        return ErrorCode.CONNECTION_LOST;
    }

    /**
     * True when the channel close names a problem with one message (its destination: 404, 403;
     * or the message itself: 406 on {@code basic.publish}): the broker does not say which
     * message, so every message in flight is only a suspect.
     */
    public static boolean blamesOneMessage(ErrorCode code) {
        return code == ErrorCode.EXCHANGE_NOT_FOUND
                || code == ErrorCode.ACCESS_REFUSED
                || code == ErrorCode.UNENCODABLE;
    }

    /** {@code basic.return}: 312 NO_ROUTE (and 313, should immediate ever be used) is unroutable. */
    public static ErrorCode classifyReturn(int replyCode) {
        return ErrorCode.UNROUTABLE;
    }
}
