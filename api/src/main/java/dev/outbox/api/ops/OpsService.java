package dev.outbox.api.ops;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.outbox.ContractConflictException;
import dev.outbox.api.http.ApiException;
import dev.outbox.api.http.Problem;
import dev.outbox.domain.InvalidInputException;
import dev.outbox.jdbc.MessageRegistry;
import dev.outbox.kernel.contract.MessageContract;
import dev.outbox.kernel.json.Json;
import dev.outbox.kernel.outbox.OutboxRecord;
import dev.outbox.kernel.outbox.OutboxStatus;
import dev.outbox.ops.views.OpsActionViews;
import dev.outbox.ops.views.OpsOverviewViews;
import dev.outbox.ops.views.OpsViews;
import dev.outbox.persistence.DataAccessTranslation;
import dev.outbox.persistence.ops.AuditEntry;
import dev.outbox.persistence.ops.BulkRetryFilter;
import dev.outbox.persistence.ops.BulkRetryOutcome;
import dev.outbox.persistence.ops.CodeCount;
import dev.outbox.persistence.ops.FinishedCounts;
import dev.outbox.persistence.ops.MinuteCount;
import dev.outbox.persistence.ops.OpsMapper;
import dev.outbox.persistence.ops.OutboxQuery;
import dev.outbox.persistence.ops.OutboxStats;
import dev.outbox.persistence.outbox.OutboxMapper;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import jakarta.inject.Singleton;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.ibatis.session.SqlSessionManager;
import org.mybatis.guice.transactional.Transactional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operators' use cases. Every repair is one transaction that changes the rows (guarded by
 * the status it may change, same ids, never a new message) and writes an {@code ops_audit} row
 * saying who did what, to which ids or filter, why, and how many rows it touched.
 */
@Singleton
public class OpsService {
    private static final Logger LOG = LoggerFactory.getLogger(OpsService.class);
    public static final int MAX_BULK = 1_000;
    /**
     * Published and cancelled rows are most of a long-lived table: they are counted one by one up to
     * this many (a walk of at most this many entries of their partial index, a few milliseconds) and
     * estimated above it, so the overview's 5-second refresh costs the same on any table.
     */
    public static final int EXACT_FINISHED_UP_TO = 10_000;

    private final OpsMapper ops;
    private final OutboxMapper outbox;
    private final MissingEventsCheck missingEvents;
    private final SqlSessionManager sessions;
    private final Duration lease;

    @Inject
    public OpsService(
            OpsMapper ops,
            OutboxMapper outbox,
            MissingEventsCheck missingEvents,
            SqlSessionManager sessions,
            @Named("relay.lease") Duration lease) {
        this.ops = ops;
        this.outbox = outbox;
        this.missingEvents = missingEvents;
        this.sessions = sessions;
        this.lease = lease;
    }

    @Transactional
    public OpsViews.Page search(OutboxQuery query, boolean withPayload) {
        List<OutboxRecord> rows = ops.search(query);
        String next = null;
        if (rows.size() == query.limit()) {
            // the query asked for one more than the page: its presence means there is a next page
            rows = rows.subList(0, query.limit() - 1);
            OutboxRecord last = rows.get(rows.size() - 1);
            next = Cursors.encode(last.createdAt(), last.id());
        }
        List<OpsViews.Row> items = new ArrayList<>();
        for (OutboxRecord r : rows) {
            items.add(StoredViews.row(r, withPayload, leaseExpiry(r), null));
        }
        return new OpsViews.Page(items, next);
    }

    @Transactional
    public Optional<OpsViews.Row> detail(UUID id, boolean withPayload) {
        OutboxRecord r = outbox.findById(id);
        if (r == null) {
            return Optional.empty();
        }
        OpsViews.Blocker blocker = null;
        if (r.aggregateVersion() != null && (r.is(OutboxStatus.PENDING) || r.is(OutboxStatus.RETRYABLE_FAILED))) {
            OutboxRecord b = ops.blockingVersion(id);
            if (b != null) {
                blocker = new OpsViews.Blocker(b.id(), b.aggregateVersion(), b.status(), b.lastErrorCode());
            }
        }
        return Optional.of(StoredViews.row(r, withPayload, leaseExpiry(r), blocker));
    }

    /** A {@code PARKED} or {@code RETRYABLE_FAILED} row becomes due now, same id, fresh attempt budget. */
    @Transactional
    public OpsActionViews.ActionResult retry(UUID id, OpsPrincipal who, String reason) {
        List<UUID> changed = outbox.retryNow(new UUID[] {id});
        requireChanged(id, changed, "retried", "PARKED or RETRYABLE_FAILED");
        OpsActionViews.Audit entry = audit(who, "RETRY", changed, null, reason);
        return new OpsActionViews.ActionResult("RETRY", changed.size(), changed, entry);
    }

    @Transactional
    public OpsActionViews.BulkRetryResult bulkRetry(
            BulkRetryFilter filter, boolean dryRun, int limit, OpsPrincipal who, String reason) {
        BulkRetryOutcome outcome = ops.bulkRetry(filter, dryRun ? 0 : limit);
        long matched = outcome.matched();
        if (dryRun) {
            return new OpsActionViews.BulkRetryResult(true, matched, 0, null, matched, null);
        }
        List<UUID> ids = List.of(outcome.ids());
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("status", filter.status());
        f.put("errorCode", filter.errorCode());
        f.put("messageType", filter.messageType());
        f.put(
                "createdFrom",
                filter.createdFrom() == null ? null : filter.createdFrom().toString());
        f.put(
                "createdTo",
                filter.createdTo() == null ? null : filter.createdTo().toString());
        f.put("limit", limit);
        OpsActionViews.Audit entry = audit(who, "BULK_RETRY", ids, Json.write(f), reason);
        // one snapshot: ids are a subset of the matched rows, so remaining is never negative
        return new OpsActionViews.BulkRetryResult(false, matched, ids.size(), ids, matched - ids.size(), entry);
    }

    @Transactional
    public OpsActionViews.ActionResult cancel(UUID id, OpsPrincipal who, String reason) {
        requireReason(reason);
        List<UUID> changed = ops.cancel(id, "cancelled by " + who.actor() + ": " + reason);
        requireChanged(id, changed, "cancelled", "PENDING, RETRYABLE_FAILED or PARKED");
        OpsActionViews.Audit entry = audit(who, "CANCEL", changed, null, reason);
        return new OpsActionViews.ActionResult("CANCEL", changed.size(), changed, entry);
    }

    /** A {@code PUBLISHED} row is published again with the same id, so consumers deduplicate it. */
    @Transactional
    public OpsActionViews.ActionResult replay(UUID id, OpsPrincipal who, String reason) {
        List<UUID> changed = ops.replay(id);
        requireChanged(id, changed, "replayed", "PUBLISHED");
        OpsActionViews.Audit entry = audit(who, "REPLAY", changed, null, reason);
        return new OpsActionViews.ActionResult("REPLAY", changed.size(), changed, entry);
    }

    /** Every {@code PUBLISHED} row of one aggregate is published again, in version order. */
    @Transactional
    public OpsActionViews.ActionResult replayAggregate(
            String aggregateType, String aggregateId, OpsPrincipal who, String reason) {
        if (aggregateType == null || aggregateType.isBlank() || aggregateId == null || aggregateId.isBlank()) {
            throw InvalidInputException.of("aggregateType/aggregateId", "are required");
        }
        List<UUID> changed = ops.replayAggregate(aggregateType, aggregateId);
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("aggregateType", aggregateType);
        f.put("aggregateId", aggregateId);
        OpsActionViews.Audit entry = audit(who, "REPLAY_AGGREGATE", changed, Json.write(f), reason);
        return new OpsActionViews.ActionResult("REPLAY_AGGREGATE", changed.size(), changed, entry);
    }

    /** A stuck {@code IN_PROGRESS} row is taken from its relay (whose late mark the fence refuses). */
    @Transactional
    public OpsActionViews.ActionResult releaseLease(UUID id, OpsPrincipal who, String reason) {
        List<UUID> changed =
                ops.releaseLease(id, "lease released by " + who.actor() + (reason == null ? "" : ": " + reason));
        requireChanged(id, changed, "released", "IN_PROGRESS");
        OpsActionViews.Audit entry = audit(who, "RELEASE_LEASE", changed, null, reason);
        return new OpsActionViews.ActionResult("RELEASE_LEASE", changed.size(), changed, entry);
    }

    /**
     * A note on a row, for the next operator: kept in the audit log beside the row's repairs
     * ({@code GET /ops/audit?messageId=}). The row itself is not changed, whatever its status.
     */
    @Transactional
    public OpsActionViews.ActionResult note(UUID id, OpsPrincipal who, String text) {
        if (text == null || text.isBlank()) {
            throw InvalidInputException.of("reason", "is the note: it must not be empty");
        }
        if (outbox.findById(id) == null) {
            throw ApiException.notFound("message " + id);
        }
        OpsActionViews.Audit entry = audit(who, "NOTE", List.of(id), null, text.strip(), 0);
        return new OpsActionViews.ActionResult("NOTE", 0, List.of(id), entry);
    }

    /**
     * Registers a service's contracts, then its queues, and audits it, all in this transaction: the
     * registry's statements run on the transaction's own connection, so a contract registered
     * already with another schema, or any failure after it, leaves nothing of the registration
     * written, its audit entry included. {@code affected}: the rows added or replaced.
     */
    @Transactional
    public OpsActionViews.RegisterResult register(
            List<MessageContract> contracts, List<ObjectNode> queues, OpsPrincipal who, String reason) {
        MessageRegistry.Outcomes done;
        try {
            done = MessageRegistry.registerIn(
                    sessions.getConnection(), contracts, queues, who.actor() + " (operator API)");
        } catch (ContractConflictException e) {
            throw new ApiException(
                    Problem.of(409, "contract_conflict", "Contract registered with another schema", e.getMessage()));
        } catch (SQLException e) {
            throw DataAccessTranslation.translate(e);
        }
        Map<String, Object> registered = new LinkedHashMap<>();
        registered.put(
                "contracts",
                contracts.stream()
                        .map(c -> c.messageType() + " v" + c.version())
                        .toList());
        registered.put(
                "queues", queues.stream().map(q -> q.get("queue").asText()).toList());
        MessageRegistry.Outcome written = done.contracts();
        MessageRegistry.Outcome declared = done.queues();
        int affected = written.added() + declared.added() + declared.replaced();
        OpsActionViews.Audit entry = audit(who, "REGISTER", List.of(), Json.write(registered), reason, affected);
        return new OpsActionViews.RegisterResult(
                written.added(),
                written.unchanged(),
                declared.added(),
                declared.unchanged(),
                declared.replaced(),
                entry);
    }

    @Transactional
    public OpsOverviewViews.Stats stats() {
        OutboxStats s = ops.stats();
        Map<String, Long> counts = new LinkedHashMap<>();
        counts.put("PENDING", s.pending());
        counts.put("IN_PROGRESS", s.inProgress());
        counts.put("RETRYABLE_FAILED", s.retryableFailed());
        counts.put("PARKED", s.parked());
        // a status a newer version wrote is counted under its own name, not left out
        for (CodeCount c : ops.unknownStatusCounts()) {
            counts.put(c.code(), c.count());
        }
        Map<String, Long> parked = new LinkedHashMap<>();
        for (CodeCount c : ops.parkedByErrorCode()) {
            parked.put(c.code(), c.count());
        }
        long[] perMinute = new long[60];
        for (MinuteCount m : ops.publishedPerMinute()) {
            if (m.minutesAgo() >= 0 && m.minutesAgo() < 60) {
                perMinute[59 - m.minutesAgo()] = m.count();
            }
        }
        FinishedCounts f = ops.finishedCounts(EXACT_FINISHED_UP_TO + 1);
        Map<String, OpsOverviewViews.FinishedCount> finished = new LinkedHashMap<>();
        finished.put(
                "PUBLISHED", StoredViews.finishedCount(f.published(), f.publishedEstimate(), EXACT_FINISHED_UP_TO));
        finished.put(
                "CANCELLED", StoredViews.finishedCount(f.cancelled(), f.cancelledEstimate(), EXACT_FINISHED_UP_TO));
        return new OpsOverviewViews.Stats(
                counts,
                finished,
                s.publishedLastHour(),
                java.util.Arrays.stream(perMinute).boxed().toList(),
                s.oldestPendingAgeSeconds(),
                parked,
                s.blockedAggregates());
    }

    @Transactional
    public OpsActionViews.AuditPage audit(Long beforeId, UUID messageId, int limit) {
        List<AuditEntry> entries = ops.auditLog(beforeId, messageId, limit + 1);
        String next = null;
        if (entries.size() > limit) {
            entries = entries.subList(0, limit);
            next = String.valueOf(entries.get(entries.size() - 1).id());
        }
        return new OpsActionViews.AuditPage(
                entries.stream().map(StoredViews::audit).toList(), next);
    }

    @Transactional
    public OpsOverviewViews.Reconcile reconcile() {
        var missing = missingEvents.missingEvents(100);
        var expired = ops.expiredLeases(lease.toMillis(), 100);
        var blocked = ops.blockedAggregates(100);
        var waiting = ops.waitingConsumers(Duration.ofMinutes(5).toMillis(), 100);
        var sideEffects = ops.pendingSideEffects(Duration.ofMinutes(5).toMillis(), 100);
        return StoredViews.reconcile(missing, expired, blocked, waiting, sideEffects);
    }

    private void requireChanged(UUID id, List<UUID> changed, String verb, String allowed) {
        if (!changed.isEmpty()) {
            return;
        }
        OutboxRecord r = outbox.findById(id);
        if (r == null) {
            throw ApiException.notFound("message " + id);
        }
        throw new ApiException(Problem.of(
                409,
                "invalid_state",
                "Not allowed in the row's current state",
                "message " + id + " is " + r.status()
                        + (r.knownStatus().isPresent() ? "" : ", a status this version does not know")
                        + "; only " + allowed + " rows can be " + verb));
    }

    private static void requireReason(String reason) {
        if (reason == null || reason.isBlank()) {
            throw InvalidInputException.of("reason", "is required");
        }
        if (reason.length() > 500) {
            throw InvalidInputException.of("reason", "must be at most 500 characters");
        }
    }

    private OpsActionViews.Audit audit(OpsPrincipal who, String action, List<UUID> ids, String filter, String reason) {
        return audit(who, action, ids, filter, reason, ids.size());
    }

    private OpsActionViews.Audit audit(
            OpsPrincipal who, String action, List<UUID> ids, String filter, String reason, int affected) {
        ops.audit(new AuditEntry(
                null,
                null,
                who.actor(),
                who.role().label(),
                action,
                ids.toArray(UUID[]::new),
                filter,
                reason,
                affected));
        LOG.info(
                "ops {} by {} ({}) on {} row(s){}",
                action,
                who.actor(),
                who.role().label(),
                ids.size(),
                reason == null ? "" : ": " + reason);
        return StoredViews.audit(ops.auditWritten());
    }

    private java.time.Instant leaseExpiry(OutboxRecord r) {
        return r.lockedAt() == null ? null : r.lockedAt().plus(lease);
    }
}
