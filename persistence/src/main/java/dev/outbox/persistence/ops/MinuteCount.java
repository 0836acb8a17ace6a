package dev.outbox.persistence.ops;

/** Rows published in one minute of the last hour: {@code minutesAgo} 0 is the current minute. */
public record MinuteCount(int minutesAgo, long count) {}
