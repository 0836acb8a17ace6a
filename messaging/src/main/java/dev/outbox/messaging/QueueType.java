package dev.outbox.messaging;

import dev.outbox.config.ConfigurationException;
import java.util.Locale;

/**
 * How consumer queues and their dead-letter queues are declared ({@code OUTBOX_AMQP_QUEUE_TYPE}).
 * {@code classic} keeps zero-infra mode and a single node working; {@code quorum} replicates each
 * queue over the cluster's nodes with Raft, so a publisher confirm means a majority of them has
 * the message. A queue file may name its own type in its {@code arguments}; that wins.
 */
public enum QueueType {
    CLASSIC,
    QUORUM;

    /** The value of the {@code x-queue-type} argument. */
    public String argument() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static QueueType parse(String value) {
        for (QueueType t : values()) {
            if (t.argument().equalsIgnoreCase(value.trim())) {
                return t;
            }
        }
        throw new ConfigurationException("OUTBOX_AMQP_QUEUE_TYPE must be classic or quorum, not '" + value + "'");
    }
}
