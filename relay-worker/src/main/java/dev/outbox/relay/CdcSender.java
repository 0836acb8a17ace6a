package dev.outbox.relay;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ShutdownSignalException;
import dev.outbox.kernel.outbox.ErrorCode;
import dev.outbox.messaging.BrokerSession;
import dev.outbox.messaging.publish.AmqpMessageMapper;
import dev.outbox.messaging.publish.ConfirmPublisher;
import dev.outbox.messaging.publish.PublishListener;
import dev.outbox.messaging.publish.PublishSpans;
import java.io.IOException;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;

/**
 * Hands the stream's rows to the broker: publishes each on a confirm channel with {@code
 * mandatory} (one {@link ConfirmPublisher} at a time, opened anew when the session's connection
 * changes), and turns what the broker answers into the {@link CdcRecorder}'s outcomes. A broker
 * outage keeps the stream's thread in {@link #send} waiting for the session's next connection,
 * telling the server it is still there, rather than ending the stream. One per stream; its
 * publishers are closed when the stream ends.
 */
final class CdcSender {
    /** The longest the stream's thread waits in one go for the broker (a window slot, a connection). */
    static final Duration WAIT_STEP = Duration.ofMillis(100);

    private final PublishSpans spans;
    private final BrokerSession session;
    private final RelayConfig relayConfig;
    private final RelayStats stats;
    private final CdcRecorder recorder;
    private final CdcKeepAlive keepAlive;
    private final BooleanSupplier running;
    private final PublishListener<CdcRow> listener;

    /** The stream's publishers (one at a time; the last one closed when the stream ends). */
    private final List<ConfirmPublisher<CdcRow>> publishers = new CopyOnWriteArrayList<>();

    private ConfirmPublisher<CdcRow> publisher;

    CdcSender(
            BrokerSession session,
            RelayConfig relayConfig,
            RelayStats stats,
            CdcRecorder recorder,
            CdcKeepAlive keepAlive,
            BooleanSupplier running,
            PublishSpans spans) {
        this.spans = spans;
        this.session = session;
        this.relayConfig = relayConfig;
        this.stats = stats;
        this.recorder = recorder;
        this.keepAlive = keepAlive;
        this.running = running;
        this.listener = listener();
    }

    /** Publishes the row, or records it as failed when it cannot be mapped to a message. */
    void send(CdcRow row) throws InterruptedException, SQLException {
        AmqpMessageMapper.Mapped mapped = relayConfig.contracts().map(row.record);
        if (mapped instanceof AmqpMessageMapper.Invalid invalid) {
            recorder.sending();
            recorder.add(new CdcRecorder.Outcome(row, invalid.code(), invalid.reason(), false));
            return;
        }
        while (running.getAsBoolean()) {
            // a broker outage keeps this thread here: the server must still hear from the reader
            keepAlive.keepAlive();
            ConfirmPublisher<CdcRow> p = publisher;
            if (p == null || !p.isOpen()) {
                Connection connection = session.connection();
                if (connection == null) {
                    session.awaitAvailable(WAIT_STEP);
                    continue;
                }
                try {
                    p = ConfirmPublisher.open(
                            connection,
                            relayConfig.confirmWindow(),
                            session.config().maxMessageBytes(),
                            listener,
                            spans);
                    if (publisher != null) {
                        publishers.remove(publisher);
                    }
                    publishers.add(p);
                    publisher = p;
                } catch (IOException | ShutdownSignalException e) {
                    // the connection closed under us (a broker restart): wait for the session's next
                    // one; ending the stream here would hand the slot to a standby and replay what is
                    // in flight
                    if (session.awaitAvailable(WAIT_STEP)) {
                        Thread.sleep(100); // the session has not noticed yet: do not spin
                    }
                    continue;
                }
            }
            if (!p.acquireSlot(WAIT_STEP)) {
                p.expire(relayConfig.confirmTimeout());
                continue;
            }
            try {
                recorder.sending();
                p.publish(((AmqpMessageMapper.Ready) mapped).message(), row);
                stats.attempted();
                return;
            } catch (IOException e) {
                // not sent, and the caller still owns it: a fresh channel takes it
                recorder.notSent();
                publisher = null;
            }
        }
        // stopping: the row stays PENDING and unflushed; the next reader of the slot sends it
    }

    /** Fails, as {@code CONFIRM_TIMEOUT}, what the current channel has had in flight for too long. */
    void expire() {
        ConfirmPublisher<CdcRow> p = publisher;
        if (p != null) {
            p.expire(relayConfig.confirmTimeout());
        }
    }

    /**
     * Closes the stream's publishers: what they still have in flight is reported (unknown: left to
     * the retry path, and sent again by the next reader of the slot, since its transactions were
     * not confirmed).
     */
    void closeAll() {
        publishers.forEach(ConfirmPublisher::close);
        publishers.clear();
    }

    private PublishListener<CdcRow> listener() {
        return new PublishListener<>() {
            @Override
            public void confirmed(CdcRow row, long confirmNanos) {
                stats.confirmed(
                        row.record.id(),
                        confirmNanos,
                        row.record.createdAt() == null
                                ? Duration.ZERO
                                : Duration.between(row.record.createdAt(), Instant.now()));
                recorder.add(new CdcRecorder.Outcome(row, null, null, false));
            }

            @Override
            public void failed(CdcRow row, ErrorCode code, String detail) {
                stats.failed(code);
                recorder.add(new CdcRecorder.Outcome(row, code, detail, false));
            }

            @Override
            public void suspect(CdcRow row, ErrorCode code, String detail) {
                // the broker closed the channel and did not say for which message: the retry path
                // publishes the rows it left, each alone after a channel error, and finds out
                recorder.add(new CdcRecorder.Outcome(row, code, detail, true));
            }

            @Override
            public void unknown(CdcRow row, String detail) {
                recorder.add(new CdcRecorder.Outcome(row, null, detail, true));
            }
        };
    }
}
