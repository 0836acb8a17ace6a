package dev.outbox.chaos;

import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * What one rollout test saw, once every relay has stopped: what {@link RolloutChecks} judges and
 * {@link RolloutReport} writes down. Times are seconds since the test started.
 *
 * @param environment the database and vhost, and where they came from
 * @param machine cores, PostgreSQL and broker versions, the server's connection limit
 * @param maxConnections the server's {@code max_connections} less its reserved connections
 * @param brokerSampled whether the broker's own count of connections and channels was read
 * @param startFailures relays that did not come up, with the end of their log
 * @param sigtermAt when the SIGTERMs went out; {@code deliveredAtSigterm} the share of the
 *     backlog delivered then
 * @param drainedAt when the backlog's last id arrived; -1 when it did not within the bound
 * @param counterStopped why the counting consumer stopped before the end, or null
 * @param statuses the outbox rows by status at the end
 * @param givenBack rows a relay's peers gave back for it (its liveness lock gone, or its lease
 *     expired): {@code STALE_LOCK} or {@code RELAY_DIED} on the row
 * @param sessionsOpened sessions PostgreSQL opened in the run's database while the relays ran
 */
record RolloutRun(
        RolloutOptions options,
        String environment,
        String machine,
        int maxConnections,
        boolean brokerSampled,
        List<RolloutRelay> relays,
        List<ConnectionWatch.Sample> samples,
        List<ConnectionWatch.Excess> excesses,
        String watchFailures,
        List<String> startFailures,
        double writeSeconds,
        double launchedAt,
        double sigtermAt,
        double deliveredAtSigterm,
        double firstDeliveryAt,
        double drainedAt,
        int delivered,
        long extraCopies,
        int duplicatedIds,
        long redeliveries,
        long foreign,
        List<UUID> missing,
        String counterStopped,
        Map<String, Long> statuses,
        long givenBack,
        long sessionsOpened,
        String loadBefore,
        String loadAfter) {

    List<RolloutRelay> inRole(RolloutRelay.Role role) {
        return relays.stream().filter(r -> r.role == role).toList();
    }

    /** The relays started at once on the backlog (the SIGTERMed ones and the survivors). */
    List<RolloutRelay> firstWave() {
        return relays.stream()
                .filter(r -> r.role != RolloutRelay.Role.REPLACEMENT)
                .toList();
    }

    /** The most backends the relays held together before the SIGTERMs: what starting them all cost. */
    int startPeak() {
        return peak(s -> s.at() < sigtermAt ? s.relayBackends() : 0);
    }

    int peakRelayBackends() {
        return peak(ConnectionWatch.Sample::relayBackends);
    }

    int peakServerBackends() {
        return peak(ConnectionWatch.Sample::serverBackends);
    }

    int peakBrokerConnections() {
        return peak(ConnectionWatch.Sample::brokerConnections);
    }

    int peakLiveRelays() {
        return peak(ConnectionWatch.Sample::liveRelays);
    }

    private int peak(java.util.function.ToIntFunction<ConnectionWatch.Sample> of) {
        return samples.stream().mapToInt(of).max().orElse(0);
    }

    /**
     * The sessions the relays may open at most without a retry, each its
     * {@link RolloutOptions#sessionsPerRelay()}, and the test's own: its pool (6) and its watch (1).
     */
    long sessionAllowance() {
        return (long) relays.size() * options.sessionsPerRelay() + 7;
    }

    /**
     * Copies the design allows to be published twice: the outcomes the relays did not know, each
     * published again. A relay that stops cleanly names its own (unconfirmed when its shutdown
     * timeout ran out; a mark its lease no longer covered); the rows of one that was killed come back
     * through its peers, marked on the row.
     */
    long unknownOutcomes() {
        return relays.stream()
                        .mapToLong(r -> r.unknownAtShutdown + (r.stop == null ? 0 : r.stop.lostLeases()))
                        .sum()
                + givenBack;
    }
}
