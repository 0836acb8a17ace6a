package dev.outbox.messaging;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Method;
import com.rabbitmq.client.ShutdownSignalException;

/** Short, log-safe descriptions of broker shutdowns: reply code and text, never a stack. */
public final class FailureDescriptions {
    private FailureDescriptions() {}

    public static String describe(ShutdownSignalException sse) {
        Method reason = sse.getReason();
        String scope = sse.isHardError() ? "connection" : "channel";
        if (reason instanceof AMQP.Connection.Close c) {
            return scope + " closed " + c.getReplyCode() + " " + c.getReplyText();
        }
        if (reason instanceof AMQP.Channel.Close c) {
            return scope + " closed " + c.getReplyCode() + " " + c.getReplyText();
        }
        Throwable cause = sse.getCause();
        if (cause != null) {
            return scope + " lost: " + cause.getClass().getSimpleName()
                    + (cause.getMessage() == null ? "" : " " + cause.getMessage());
        }
        return scope + " closed" + (sse.isInitiatedByApplication() ? " by this process" : "");
    }
}
