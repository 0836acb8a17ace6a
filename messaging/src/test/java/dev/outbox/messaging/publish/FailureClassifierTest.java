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
        assertEquals(ErrorCode.CHANNEL_ERROR, FailureClassifier.classify(channelClose(405, "NOT_FOUND - no exchange")));
    }

    @Test
    void otherChannelErrorsAreRetryableChannelErrors() {
        ErrorCode code = FailureClassifier.classify(channelClose(405, "RESOURCE_LOCKED"));
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
        assertTrue(FailureClassifier.blamesOneMessage(ErrorCode.EXCHANGE_NOT_FOUND));
        assertTrue(FailureClassifier.blamesOneMessage(ErrorCode.ACCESS_REFUSED));
        assertTrue(FailureClassifier.blamesOneMessage(ErrorCode.UNENCODABLE));
        assertFalse(FailureClassifier.blamesOneMessage(ErrorCode.CHANNEL_ERROR));
        assertFalse(FailureClassifier.blamesOneMessage(ErrorCode.CONNECTION_LOST));
    }

    @Test
    void aPreconditionFailedOnBasicPublishIsTheMessageItselfElsewhereAChannelError() {
        ShutdownSignalException tooBig = new ShutdownSignalException(
                false,
                false,
                new AMQImpl.Channel.Close(
                        406, "PRECONDITION_FAILED - message size 2000 is larger than max size 1000", 60, 40),
                null);
        assertEquals(ErrorCode.UNENCODABLE, FailureClassifier.classify(tooBig));
        assertFalse(ErrorCode.UNENCODABLE.retryable());
        ShutdownSignalException onDeclare = new ShutdownSignalException(
                false, false, new AMQImpl.Channel.Close(406, "PRECONDITION_FAILED - inequivalent arg", 50, 10), null);
        assertEquals(ErrorCode.CHANNEL_ERROR, FailureClassifier.classify(onDeclare));
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
            ErrorCode.UNROUTABLE,
            ErrorCode.EXCHANGE_NOT_FOUND,
            ErrorCode.ACCESS_REFUSED,
            ErrorCode.PAYLOAD_INVALID,
            ErrorCode.UNENCODABLE
        }) {
            assertFalse(c.retryable(), c + " is parked");
        }
    }
}
