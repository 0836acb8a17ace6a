package dev.outbox.relay;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What the CDC relay counts and measures, for its metrics and health ({@link CdcRelay}'s getters,
 * which {@code RelayApp} registers): written by the stream's and the recorder's threads, read by
 * any.
 */
final class CdcCounters {
    /** Rows that came through the stream. */
    final AtomicLong streamed = new AtomicLong();
    /** Rows the stream left {@code PENDING} to the retry path. */
    final AtomicLong leftToRetryPath = new AtomicLong();
    /** Slots the server invalidated, dropped and created again. */
    final AtomicLong slotsRecreated = new AtomicLong();
    /** Streams opened on the slot by this relay: more than one means it lost the stream and took it again. */
    final AtomicLong streamsOpened = new AtomicLong();
    /** Outcomes written again because their row was not visible yet when the first write ran. */
    final AtomicLong marksDeferred = new AtomicLong();

    /** WAL the server keeps for the slot, in bytes; -1 before the first look. */
    volatile long lagBytes = -1;
    /** Seconds between the newest tick written and the newest tick handled; -1 before the first. */
    volatile double lagSeconds = -1;
}
