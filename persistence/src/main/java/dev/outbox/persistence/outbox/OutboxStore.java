package dev.outbox.persistence.outbox;

import dev.outbox.kernel.outbox.ErrorCode;
import dev.outbox.kernel.outbox.Lease;
import dev.outbox.kernel.outbox.OutboxRecord;
import dev.outbox.persistence.relay.RelayLock;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Consumer;
import org.mybatis.guice.transactional.Transactional;

/**
 * The relay's side of the outbox: each method is one short transaction of its own, committed
 * before the caller talks to the broker (a database transaction is never held open across a
 * broker round trip). {@code force = true} because the statements are {@code UPDATE ... RETURNING},
 * which MyBatis runs as selects and would otherwise not commit.
 */
@Singleton
public class OutboxStore {
    private final OutboxMapper mapper;

    @Inject
    public OutboxStore(OutboxMapper mapper) {
        this.mapper = mapper;
    }

    /** Leases up to {@code limit} due rows for {@code relayId}, in due order, every type in strict order. */
    public List<OutboxRecord> claim(String relayId, int limit) {
        return claim(relayId, limit, Set.of());
    }

    /**
     * Leases up to {@code limit} due rows for {@code relayId}, in due order; message types in
     * {@code unorderedTypes} are not held back by earlier versions of their aggregate.
     */
    public List<OutboxRecord> claim(String relayId, int limit, Set<String> unorderedTypes) {
        return claim(relayId, limit, unorderedTypes, false);
    }

    /**
     * As {@link #claim(String, int, Set)}; with {@code fenced}, nothing is leased unless this
     * relay's liveness session holds its lock at the moment of the claim (see {@link RelayLock}).
     */
    public List<OutboxRecord> claim(String relayId, int limit, Set<String> unorderedTypes, boolean fenced) {
        return claim(relayId, limit, unorderedTypes, fenced, null);
    }

    /**
     * As {@link #claim(String, int, Set, boolean)}; with a {@code cdcSlot} (CDC mode) this is the
     * retry path, and a {@code PENDING} row is claimed only once that slot's stream has handed it
     * over ({@code outbox_cdc_position}, migration V13).
     */
    public List<OutboxRecord> claim(
            String relayId, int limit, Set<String> unorderedTypes, boolean fenced, String cdcSlot) {
        return claim(relayId, limit, unorderedTypes, fenced, cdcSlot, rows -> {});
    }

    /**
     * As {@link #claim(String, int, Set, boolean, String)}, handing the leased rows to {@code
     * beforeCommit} once the statement has returned them and before the transaction commits. A
     * caller whose claim then fails (the connection cut during the commit) still knows which leases
     * may exist: the commit may have been written and only its answer lost. It gives them back,
     * fenced by their tokens ({@link #release}), instead of leaving them to stale-lease recovery.
     */
    @Transactional(force = true)
    public List<OutboxRecord> claim(
            String relayId,
            int limit,
            Set<String> unorderedTypes,
            boolean fenced,
            String cdcSlot,
            Consumer<List<OutboxRecord>> beforeCommit) {
        List<OutboxRecord> rows = new ArrayList<>(mapper.claimPending(
                relayId, limit, unorderedTypes.toArray(String[]::new), fenced ? RelayLock.NAMESPACE : null, cdcSlot));
        // RETURNING does not keep the subquery's order; publish in due order, versions ascending
        rows.sort(java.util.Comparator.comparing(OutboxRecord::nextAttemptAt)
                .thenComparing(OutboxRecord::createdAt)
                .thenComparing(r -> r.aggregateVersion() == null ? Long.MAX_VALUE : r.aggregateVersion()));
        beforeCommit.accept(List.copyOf(rows));
        return rows;
    }

    /**
     * Leases one suspect (a row given back because the relay holding it died) for publishing on
     * its own, if one is due and {@code relayId} holds no other row; fenced as {@link #claim}.
     */
    public Optional<OutboxRecord> claimSuspect(String relayId, Set<String> unorderedTypes, boolean fenced) {
        return claimSuspect(relayId, unorderedTypes, fenced, rows -> {});
    }

    /** As {@link #claimSuspect(String, Set, boolean)}, with {@code beforeCommit} as in {@link #claim}. */
    @Transactional(force = true)
    public Optional<OutboxRecord> claimSuspect(
            String relayId, Set<String> unorderedTypes, boolean fenced, Consumer<List<OutboxRecord>> beforeCommit) {
        List<OutboxRecord> rows = mapper.claimSuspect(
                relayId, unorderedTypes.toArray(String[]::new), fenced ? RelayLock.NAMESPACE : null);
        beforeCommit.accept(List.copyOf(rows));
        return rows.stream().findFirst();
    }

    /** Whether a suspect is waiting to be published alone. */
    @Transactional
    public boolean hasDueSuspects(Set<String> unorderedTypes) {
        return mapper.hasDueSuspects(unorderedTypes.toArray(String[]::new));
    }

    /** @return the ids that were still leased to this relay and are now {@code PUBLISHED} */
    @Transactional(force = true)
    public Set<UUID> markPublished(String relayId, Collection<Lease> leases) {
        if (leases.isEmpty()) {
            return Set.of();
        }
        return new HashSet<>(mapper.markPublished(relayId, ids(leases), tokens(leases)));
    }

    /**
     * Records failed attempts, retryable and parked alike, in one transaction.
     *
     * @return the ids that were still leased to this relay and now carry the failure
     */
    @Transactional(force = true)
    public Set<UUID> recordFailures(String relayId, Collection<Failure> failures) {
        List<Failure> retry = failures.stream().filter(f -> !f.park()).toList();
        List<Failure> park = failures.stream().filter(Failure::park).toList();
        Set<UUID> changed = new HashSet<>();
        if (!retry.isEmpty()) {
            changed.addAll(mapper.markRetryableFailed(
                    relayId,
                    ids(retry.stream().map(Failure::lease).toList()),
                    tokens(retry.stream().map(Failure::lease).toList()),
                    retry.stream().map(f -> f.code().name()).toArray(String[]::new),
                    retry.stream().map(Failure::message).toArray(String[]::new),
                    retry.stream().map(f -> f.delay().toMillis()).toArray(Long[]::new)));
        }
        if (!park.isEmpty()) {
            changed.addAll(mapper.markParked(
                    relayId,
                    ids(park.stream().map(Failure::lease).toList()),
                    tokens(park.stream().map(Failure::lease).toList()),
                    park.stream().map(f -> f.code().name()).toArray(String[]::new),
                    park.stream().map(Failure::message).toArray(String[]::new)));
        }
        return changed;
    }

    /**
     * Gives leased rows back, due now, without counting the attempt.
     *
     * @param reason why they were not sent, recorded as the last error; null keeps the previous one
     */
    @Transactional(force = true)
    public Set<UUID> release(String relayId, Collection<Lease> leases, ErrorCode reason, String detail) {
        if (leases.isEmpty()) {
            return Set.of();
        }
        return new HashSet<>(mapper.releaseUnsent(
                relayId, ids(leases), tokens(leases), reason == null ? null : reason.name(), detail));
    }

    /** Recovers rows whose relay has held them longer than {@code lease}. */
    @Transactional(force = true)
    public List<OutboxMapper.StaleLease> releaseStaleLocks(Duration lease, int maxAttempts, int limit) {
        return mapper.releaseStaleLocks(lease.toMillis(), maxAttempts, limit);
    }

    /**
     * Says whether {@code relayId} is waiting for work. Writers' transactions send the
     * {@code outbox_pending} notification only while some relay waits (migration V6); a
     * registration older than a minute is ignored, so a waiting relay renews it.
     */
    @Transactional
    public void waiting(String relayId, boolean waiting) {
        if (waiting) {
            mapper.registerWaiter(relayId);
        } else {
            mapper.unregisterWaiter(relayId);
        }
    }

    /** Aggregates held back by a parked earlier version. */
    @Transactional
    public long blockedAggregates() {
        return mapper.countBlockedAggregates();
    }

    /** Makes parked or failed rows due now with a fresh attempt budget; returns the ids changed. */
    @Transactional(force = true)
    public Set<UUID> retryNow(Collection<UUID> ids) {
        if (ids.isEmpty()) {
            return Set.of();
        }
        return new HashSet<>(mapper.retryNow(ids.toArray(UUID[]::new)));
    }

    /**
     * Makes rows parked with {@code code} due again when their message type and version are one
     * of {@code types} (the relay, once the cause is gone: a contract registered for them);
     * returns the ids changed. A read first: a look that finds nothing takes no write lock.
     */
    @Transactional(force = true)
    public Set<UUID> retryParked(ErrorCode code, Collection<TypeVersion> types) {
        if (types.isEmpty()) {
            return Set.of();
        }
        String[] names = types.stream().map(TypeVersion::messageType).toArray(String[]::new);
        Integer[] versions = types.stream().map(TypeVersion::version).toArray(Integer[]::new);
        if (!mapper.hasParked(code.name(), names, versions)) {
            return Set.of();
        }
        return new HashSet<>(mapper.retryParked(code.name(), names, versions));
    }

    /**
     * Makes rows parked {@code EXCHANGE_NOT_FOUND} or {@code UNROUTABLE} due again when {@code
     * routes} route them now and they were due before {@code cutoff} (any, when null): the relay,
     * after it declared the exchanges and bindings a registration named. A read first, as {@link
     * #retryParked}.
     *
     * @return the ids changed, and the database's time of this transaction: the cutoff that makes
     *     a later call leave alone the rows this one made due, should they park again
     */
    @Transactional(force = true)
    public Retried retryRoutable(Routes routes, Instant cutoff) {
        Instant at = mapper.transactionStart();
        if (routes.exchanges().isEmpty()) {
            return new Retried(Set.of(), at);
        }
        String[] exchanges = routes.exchanges().toArray(String[]::new);
        String[] bindingExchanges =
                routes.bindings().stream().map(Routes.Binding::exchange).toArray(String[]::new);
        String[] keyRegexes =
                routes.bindings().stream().map(Routes.Binding::keyRegex).toArray(String[]::new);
        if (!mapper.hasRoutableParked(exchanges, bindingExchanges, keyRegexes, cutoff)) {
            return new Retried(Set.of(), at);
        }
        return new Retried(new HashSet<>(mapper.retryRoutable(exchanges, bindingExchanges, keyRegexes, cutoff)), at);
    }

    /**
     * Where the broker routes now: exchanges that exist, and bindings on them, each binding key
     * as a regular expression over the routing key with a dot before each word (messaging's
     * {@code TopicPatterns}).
     */
    public record Routes(Set<String> exchanges, List<Binding> bindings) {
        public Routes {
            exchanges = Set.copyOf(exchanges);
            bindings = List.copyOf(bindings);
        }

        /** A binding of a topic exchange. */
        public record Binding(String exchange, String keyRegex) {}
    }

    /** The rows a retry made due, and when (the database's clock). */
    public record Retried(Set<UUID> ids, Instant at) {}

    /** A message type at one version. */
    public record TypeVersion(String messageType, int version) {}

    @Transactional
    public Optional<OutboxRecord> find(UUID id) {
        return Optional.ofNullable(mapper.findById(id));
    }

    private static UUID[] ids(Collection<Lease> leases) {
        return leases.stream().map(Lease::id).toArray(UUID[]::new);
    }

    private static Long[] tokens(Collection<Lease> leases) {
        return leases.stream().map(Lease::token).toArray(Long[]::new);
    }
}
