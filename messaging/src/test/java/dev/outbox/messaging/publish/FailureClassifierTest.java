package dev.outbox.messaging.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.rabbitmq.client.ShutdownSignalException;
import com.rabbitmq.client.impl.AMQImpl;
import dev.outbox.kernel.outbox.ErrorCode;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** Classification from protocol facts: reply codes and connection-vs-channel, never text. */
class FailureClassifierTest {
    private static ShutdownSignalException channelClose(int code, String text) {
        return new ShutdownSignalException(false, false, new AMQImpl.Channel.Close(code, text, 60, 40), null);
    }

    @Test
    void aChannelClosedWith404IsAMissingExchange() {
        assertEquals(ErrorCode.EXCHANGE_NOT_FOUND, FailureClassifier.classify(channelClose(404, "NOT_FOUND")));
    }

    @Test
    void aChannelClosedWith403IsAccessRefused() {
        assertEquals(ErrorCode.ACCESS_REFUSED, FailureClassifier.classify(channelClose(403, "ACCESS_REFUSED")));
    }

    @Test
    void theReplyTextIsIgnored() {
        assertEquals(ErrorCode.EXCHANGE_NOT_FOUND, FailureClassifier.classify(channelClose(404, "ACCESS_REFUSED")));
        assertEquals(ErrorCode.CHANNEL_ERROR, FailureClassifier.classify(channelClose(406, "NOT_FOUND - no exchange")));
    }

    @Test
    void otherChannelErrorsAreRetryableChannelErrors() {
        ErrorCode code = FailureClassifier.classify(channelClose(406, "PRECONDITION_FAILED"));
        assertEquals(ErrorCode.CHANNEL_ERROR, code);
        assertTrue(code.retryable());
    }

    @Test
    void anyConnectionLevelShutdownIsAConnectionLoss() {
        ShutdownSignalException forced = new ShutdownSignalException(
                true, false, new AMQImpl.Connection.Close(320, "CONNECTION_FORCED", 0, 0), null);
        assertEquals(ErrorCode.CONNECTION_LOST, FailureClassifier.classify(forced));
        ShutdownSignalException dropped = new ShutdownSignalException(true, false, null, null);
        dropped.initCause(new IOException("Connection reset"));
        assertEquals(ErrorCode.CONNECTION_LOST, FailureClassifier.classify(dropped));
    }

    @Test
    void destinationErrorsMakeSuspectsOthersDoNot() {
        assertTrue(FailureClassifier.blamesADestination(ErrorCode.EXCHANGE_NOT_FOUND));
        assertTrue(FailureClassifier.blamesADestination(ErrorCode.ACCESS_REFUSED));
        assertFalse(FailureClassifier.blamesADestination(ErrorCode.CHANNEL_ERROR));
        assertFalse(FailureClassifier.blamesADestination(ErrorCode.CONNECTION_LOST));
    }

    @Test
    void aReturnIsUnroutableAndPermanent() {
        assertEquals(ErrorCode.UNROUTABLE, FailureClassifier.classifyReturn(FailureClassifier.NO_ROUTE));
        assertFalse(ErrorCode.UNROUTABLE.retryable());
    }

    @Test
    void theDecisionTableOfTheContract() {
        for (ErrorCode c : new ErrorCode[] {
            ErrorCode.BROKER_UNAVAILABLE,
            ErrorCode.CONNECTION_LOST,
            ErrorCode.CONFIRM_TIMEOUT,
            ErrorCode.NACKED,
            ErrorCode.STALE_LOCK
        }) {
            assertTrue(c.retryable(), c + " is retried");
        }
        for (ErrorCode c : new ErrorCode[] {
            ErrorCode.UNROUTABLE, ErrorCode.EXCHANGE_NOT_FOUND, ErrorCode.ACCESS_REFUSED, ErrorCode.PAYLOAD_INVALID
        }) {
            assertFalse(c.retryable(), c + " is parked");
        }
    }
}
