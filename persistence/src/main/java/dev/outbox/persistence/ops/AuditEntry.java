package dev.outbox.persistence.ops;

import java.time.Instant;
import java.util.UUID;

/** One operator action as recorded in {@code ops_audit}. */
public record AuditEntry(
        Long id,
        Instant at,
        String actor,
        String role,
        String action,
        UUID[] messageIds,
        String filter,
        String reason,
        int affected) {}
