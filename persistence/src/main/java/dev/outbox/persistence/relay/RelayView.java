package dev.outbox.persistence.relay;

import java.time.Instant;

/**
 * One registered relay as the registry and the lock table see it now.
 *
 * @param alive some session holds the relay's liveness lock
 * @param inProgress rows leased to this relay id now
 * @param oldestLeaseAt when the oldest of those leases was taken, or null
 */
public record RelayView(
        String relayId,
        String host,
        Long pid,
        Integer backendPid,
        Instant startedAt,
        Instant heartbeatAt,
        Instant registeredAt,
        boolean alive,
        long inProgress,
        Instant oldestLeaseAt) {}
