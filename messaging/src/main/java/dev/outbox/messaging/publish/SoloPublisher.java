package dev.outbox.messaging.publish;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ShutdownSignalException;
import dev.outbox.kernel.outbox.ErrorCode;
import dev.outbox.messaging.FailureDescriptions;
import dev.outbox.messaging.publish.ConfirmPublisher.SoloOutcome;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One message published {@code mandatory} on a confirm channel of its own, and its fate waited
 * for ({@link ConfirmPublisher#publishAlone}): the answer concerns that message alone, which is
 * what finding the one of several suspects that made the broker close a channel needs, and what
 * forwarding a single message (a dead letter) wants. Every failure, from the encoding check to
 * the closing of the channel, ends in a {@link SoloOutcome}; nothing is thrown.
 */
final class SoloPublisher {
    // the publisher's log category: these lines are the publisher's, as they always were
    private static final Logger LOG = LoggerFactory.getLogger(ConfirmPublisher.class);

    private SoloPublisher() {}

    /** See {@link ConfirmPublisher#publishAlone}. */
    static SoloOutcome publish(Connection connection, OutboundMessage message, Duration timeout, long maxBodyBytes) {
        Optional<String> unencodable = MessageEncoding.problem(message, connection.getFrameMax(), maxBodyBytes);
        if (unencodable.isPresent()) {
            return new SoloOutcome(ErrorCode.UNENCODABLE, unencodable.get());
        }
        Channel ch = null;
        boolean handedOver = false;
        try {
            ch = connection.createChannel();
            if (ch == null) {
                return new SoloOutcome(ErrorCode.CHANNEL_ERROR, "no channel available", false);
            }
            AtomicReference<BasicReturn> ret = new AtomicReference<>();
            CountDownLatch returnSeen = new CountDownLatch(1);
            ch.addReturnListener(r -> {
                ret.set(new BasicReturn(r.getReplyCode(), r.getReplyText()));
                returnSeen.countDown();
            });
            ch.confirmSelect();
            // from here on the broker may have it, even if basicPublish throws part way
            handedOver = true;
            ch.basicPublish(message.exchange(), message.routingKey(), true, message.properties(), message.body());
            boolean acked = ch.waitForConfirms(timeout.toMillis());
            if (!acked) {
                // Qpid sends the return after the nack: give it its moment
                returnSeen.await(ReturnMatcher.RETURN_GRACE.toMillis(), TimeUnit.MILLISECONDS);
            }
            BasicReturn r = ret.get();
            if (r != null) {
                return new SoloOutcome(
                        FailureClassifier.classifyReturn(r.replyCode()),
                        "basic.return " + r.replyCode() + " " + r.replyText());
            }
            return acked ? SoloOutcome.CONFIRMED : new SoloOutcome(ErrorCode.NACKED, "basic.nack from the broker");
        } catch (TimeoutException e) {
            return new SoloOutcome(ErrorCode.CONFIRM_TIMEOUT, "no confirm within " + timeout.toMillis() + " ms");
        } catch (ShutdownSignalException e) {
            return new SoloOutcome(FailureClassifier.classify(e), FailureDescriptions.describe(e), handedOver);
        } catch (IOException e) {
            if (e.getCause() instanceof ShutdownSignalException sse) {
                return new SoloOutcome(FailureClassifier.classify(sse), FailureDescriptions.describe(sse), handedOver);
            }
            return new SoloOutcome(
                    ErrorCode.CONNECTION_LOST, e.getClass().getSimpleName() + " " + e.getMessage(), handedOver);
        } catch (IllegalArgumentException e) {
            // the client refused to encode it after all (the channel is closed below, so its
            // advanced sequence number cannot mislead anyone)
            return new SoloOutcome(ErrorCode.UNENCODABLE, "the AMQP client refused it: " + e.getMessage());
        } catch (RuntimeException e) {
            return new SoloOutcome(
                    ErrorCode.CHANNEL_ERROR, e.getClass().getSimpleName() + " " + e.getMessage(), handedOver);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new SoloOutcome(ErrorCode.CONNECTION_LOST, "interrupted while waiting for a confirm", handedOver);
        } finally {
            if (ch != null && ch.isOpen()) {
                try {
                    ch.close();
                } catch (IOException | TimeoutException | ShutdownSignalException e) {
                    LOG.debug("closing solo channel", e);
                }
            }
        }
    }
}
