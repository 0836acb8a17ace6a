package dev.outbox.kernel.outbox;

import java.util.UUID;

/** A relay's claim on one row: the row id and the fencing token the claim was granted. */
public record Lease(UUID id, long token) {}
