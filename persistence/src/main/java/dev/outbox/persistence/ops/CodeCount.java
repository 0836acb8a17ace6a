package dev.outbox.persistence.ops;

/** A count per error code. */
public record CodeCount(String code, long count) {}
