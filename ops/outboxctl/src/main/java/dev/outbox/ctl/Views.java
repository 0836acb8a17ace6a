package dev.outbox.ctl;

import static dev.outbox.ctl.Format.instant;

import dev.outbox.ops.views.OpsActionViews;
import dev.outbox.ops.views.OpsOverviewViews;
import dev.outbox.ops.views.OpsViews;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** The readable form of each answer of the operator API. Pure: a view in, text out. */
final class Views {
    private static final String[] STATUSES = {"PENDING", "IN_PROGRESS", "RETRYABLE_FAILED", "PARKED"};

    private Views() {}

    /** {@code GET /ops/outbox/stats}. */
    static String stats(OpsOverviewViews.Stats s) {
        Table counts = Table.of("STATUS", "COUNT").rightAlign(1);
        Map<String, Long> c = s.counts();
        for (String st : STATUSES) {
            counts.row(st, count(c, st));
        }
        // any status a newer server adds
        for (String st : c.keySet()) {
            if (!List.of(STATUSES).contains(st)) {
                counts.row(st, count(c, st));
            }
        }
        StringBuilder out = new StringBuilder(counts.render()).append('\n');
        out.append(kv("published last hour", s.publishedLastHour(), 20));
        out.append(kv("oldest pending age", Format.age(s.oldestPendingAgeSeconds()), 20));
        out.append(kv("blocked aggregates", s.blockedAggregates(), 20));
        Map<String, Long> parked = s.parkedByErrorCode();
        out.append('\n');
        if (parked.isEmpty()) {
            out.append("no parked messages\n");
        } else {
            Table byCode = Table.of("PARKED BY ERROR CODE", "COUNT").rightAlign(1);
            for (String code : parked.keySet()) {
                byCode.row(code, count(parked, code));
            }
            out.append(byCode.render());
        }
        return out.toString();
    }

    private static long count(Map<String, Long> counts, String key) {
        Long n = counts.get(key);
        return n == null ? 0 : n;
    }

    /** The rows of a {@code GET /ops/outbox} page (or of several pages put together). */
    static String list(List<OpsViews.Row> rows) {
        Table t = Table.of("ID", "STATUS", "TYPE", "AGGREGATE", "VER", "ATTEMPTS", "ERROR", "CREATED")
                .maxWidth(2, 32)
                .maxWidth(3, 40)
                .rightAlign(4)
                .rightAlign(5);
        for (OpsViews.Row r : rows) {
            t.row(
                    r.id(),
                    r.status(),
                    r.messageType(),
                    aggregate(r),
                    r.aggregateVersion(),
                    r.attemptCount(),
                    r.lastErrorCode(),
                    instant(r.createdAt()));
        }
        return t.size() == 0 ? "no messages match\n" : t.render();
    }

    /** {@code GET /ops/outbox/{id}}: every field that helps, then what to do next. */
    static String show(OpsViews.Row r) {
        StringBuilder out = new StringBuilder();
        out.append(kv("id", r.id()));
        out.append(kv("status", r.status()));
        out.append(kv("message type", r.messageType() + " v" + r.messageVersion()));
        Long version = r.aggregateVersion();
        out.append(kv(
                "aggregate", aggregate(r) + (version == null ? " (no version: not ordered)" : " version " + version)));
        out.append(kv("exchange", r.exchange()));
        out.append(kv("routing key", r.routingKey()));
        out.append(kv("attempts", r.attemptCount()));
        out.append(kv("next attempt at", instant(r.nextAttemptAt())));
        out.append(kv(
                "last error",
                r.lastErrorCode() == null
                        ? null
                        : r.lastErrorCode() + (r.lastErrorMessage() == null ? "" : ": " + r.lastErrorMessage())));
        out.append(kv("lease", lease(r.lease())));
        out.append(kv("blocked by", blocker(r.blockedBy())));
        out.append(kv("created at", instant(r.createdAt())));
        out.append(kv("published at", instant(r.publishedAt())));
        out.append(kv("correlation id", r.correlationId()));
        out.append(kv("causation id", r.causationId()));
        out.append(kv("trace id", r.traceId()));
        out.append(kv("tenant", r.tenantId()));
        // the payload and headers are any JSON, shown as the server sent them; a JSON null is none
        if (r.payload() != null && !r.payload().isNull()) {
            out.append(kv("payload", r.payload().toString()));
        } else if (r.payloadBytes() != null) {
            out.append(kv(
                    "payload",
                    r.payloadBytes() + " bytes, sha256 " + r.payloadSha256()
                            + " (content shown to the operator token only)"));
        }
        out.append(kv(
                "headers",
                r.headers() == null || r.headers().isNull() ? null : r.headers().toString()));
        out.append('\n').append(kv("next step", nextStep(r)));
        return out.toString();
    }

    /** What an operator should do about this row, in one line. */
    static String nextStep(OpsViews.Row r) {
        UUID id = r.id();
        String status = String.valueOf(r.status());
        String code = r.lastErrorCode();
        OpsViews.Blocker blocker = r.blockedBy();
        switch (status) {
            case "PUBLISHED":
                return "the broker confirmed it; if a consumer did not act on it, check the consumer side"
                        + " (processed_messages, its .dlq) - see ops/RUNBOOK.md";
            case "CANCELLED":
                return "cancelled by an operator: it will not be sent";
            case "IN_PROGRESS":
                return "a relay holds it; if that relay is gone and the lease has expired: outboxctl release " + id;
            case "PENDING":
            case "RETRYABLE_FAILED":
                if (blocker != null) {
                    return "waits for version " + blocker.aggregateVersion() + " of its aggregate: fix that one"
                            + " first (outboxctl show " + blocker.id() + ")";
                }
                return status.equals("PENDING")
                        ? "waiting for a relay: if it stays here, is a relay running?"
                                + " (outboxctl stats: oldest pending age)"
                        : "the relay retries it by itself at its next attempt; outboxctl retry " + id
                                + " makes it due now";
            case "PARKED":
                String step = parkedStep(code, id, r.exchange(), r.routingKey());
                return ("PAYLOAD_INVALID".equals(code) || "UNENCODABLE".equals(code)) && r.aggregateVersion() != null
                        ? step + " (it has a version: read ops/RUNBOOK.md on cancelling versioned rows first)"
                        : step;
            default:
                // a status a newer version wrote (in a rolling upgrade): shown as it is, advice left to that version
                return "status " + status + " is not one this outboxctl knows (a newer version wrote it?):"
                        + " see ops/RUNBOOK.md, or the outboxctl of that version";
        }
    }

    private static String parkedStep(String code, UUID id, String exchange, String routingKey) {
        if (code == null) {
            return "outboxctl retry " + id + " once the cause is fixed";
        }
        switch (code) {
            case "UNROUTABLE":
                return "no queue is bound to " + exchange + " for routing key " + routingKey
                        + ": fix the bindings (rabbitmqctl list_bindings -p <vhost>), then outboxctl retry " + id;
            case "EXCHANGE_NOT_FOUND":
                return "exchange " + exchange + " does not exist in the relay's vhost: declare it (restarting the"
                        + " relay declares the exchange of every registered contract: is the producer's registered?), then"
                        + " outboxctl retry " + id;
            case "ACCESS_REFUSED":
                return "the relay's user may not write to " + exchange + " (rabbitmqctl list_permissions -p <vhost>):"
                        + " grant it, then outboxctl retry " + id;
            case "PAYLOAD_INVALID":
                return "the payload breaks its contract and will never be sent: outboxctl cancel " + id
                        + " --reason '...' and emit it again from the source";
            case "UNENCODABLE":
                return "the row can never become an AMQP message (its last error names the field) and was never"
                        + " sent: outboxctl cancel " + id + " --reason '...' and write it again within the limits";
            case "CONTRACT_UNKNOWN":
                return "no contract for its message type is registered: register the producer's contract"
                        + " (outboxctl register <contract file>); the relay then publishes it by itself";
            default:
                return "it spent its attempts on " + code + ": check broker health and the relay's log, then"
                        + " outboxctl retry " + id;
        }
    }

    /** {@code {"action","affected","ids"}} of a single repair. */
    static String action(OpsActionViews.ActionResult a) {
        StringBuilder out = new StringBuilder();
        out.append(a.action()).append(": ").append(a.affected()).append(" message(s)");
        List<UUID> ids = a.ids();
        if (ids != null && !ids.isEmpty()) {
            out.append('\n');
            for (UUID id : ids) {
                out.append("  ").append(id).append('\n');
            }
            return out.toString();
        }
        return out.append('\n').toString();
    }

    /** {@code POST /ops/registry}: what the registration changed. */
    static String registered(OpsActionViews.RegisterResult r) {
        String contracts = r.contractsAdded() + " added, " + r.contractsUnchanged() + " unchanged";
        String queues =
                r.queuesAdded() + " added, " + r.queuesUnchanged() + " unchanged, " + r.queuesReplaced() + " replaced";
        return kv("contracts", contracts, 10) + kv("queues", queues, 10);
    }

    /** {@code GET /ops/outbox/reconcile}. */
    static String reconcile(OpsOverviewViews.Reconcile r) {
        StringBuilder out = new StringBuilder();
        if (r.ok()) {
            return "OK: every order has its events, no expired leases, no blocked aggregates, no consumer waiting"
                    + " for a version, no side effects left pending\n";
        }
        out.append("NOT OK: see below\n");
        List<OpsOverviewViews.OrderMissingEvent> missing = r.ordersMissingEvents();
        if (!missing.isEmpty()) {
            Table t = Table.of("ORDER", "ORDER VERSION", "LAST OUTBOX VERSION")
                    .rightAlign(1)
                    .rightAlign(2);
            missing.forEach(m -> t.row(m.orderId(), m.orderVersion(), m.lastOutboxVersion()));
            out.append("\nOrders whose latest change has no outbox row (written around the outbox):\n")
                    .append(t.render());
        }
        List<OpsOverviewViews.ExpiredLease> expired = r.expiredLeases();
        if (!expired.isEmpty()) {
            Table t =
                    Table.of("ID", "TYPE", "LOCKED BY", "LOCKED AT", "ATTEMPTS").rightAlign(4);
            expired.forEach(e -> t.row(e.id(), e.messageType(), e.lockedBy(), instant(e.lockedAt()), e.attemptCount()));
            out.append("\nExpired leases (a relay took them and went quiet; outboxctl release <id>):\n")
                    .append(t.render());
        }
        List<OpsOverviewViews.BlockedAggregate> blocked = r.blockedAggregates();
        if (!blocked.isEmpty()) {
            Table t = Table.of("AGGREGATE", "PARKED ID", "PARKED VER", "ERROR", "WAITING")
                    .rightAlign(2)
                    .rightAlign(4);
            blocked.forEach(b -> t.row(
                    b.aggregateType() + "/" + b.aggregateId(),
                    b.parkedId(),
                    b.parkedVersion(),
                    b.errorCode(),
                    b.waiting()));
            out.append("\nAggregates held back by a parked version (retry or cancel the parked one):\n")
                    .append(t.render());
        }
        List<OpsOverviewViews.WaitingConsumer> waiting = r.waitingConsumers();
        if (!waiting.isEmpty()) {
            Table t = Table.of("CONSUMER", "AGGREGATE", "WAITS FOR VER", "HELD", "SINCE")
                    .rightAlign(2)
                    .rightAlign(3);
            waiting.forEach(w -> t.row(
                    w.consumerName(),
                    w.aggregateType() + "/" + w.aggregateId(),
                    w.waitingForVersion(),
                    w.held(),
                    instant(w.heldSince())));
            out.append("\nConsumers holding later versions while the next one has not come (was it cancelled?):\n")
                    .append(t.render());
        }
        List<OpsOverviewViews.PendingSideEffect> effects = r.pendingSideEffects();
        if (!effects.isEmpty()) {
            Table t = Table.of("CONSUMER", "MESSAGE", "EFFECT", "STARTED");
            effects.forEach(e -> t.row(e.consumerName(), e.messageId(), e.effect(), instant(e.startedAt())));
            out.append("\nSide effects started but never finished (check by hand whether they happened):\n")
                    .append(t.render());
        }
        return out.toString();
    }

    /** {@code GET /ops/audit}. */
    static String audit(OpsActionViews.AuditPage page) {
        Table t = Table.of("AT", "ACTOR", "ROLE", "ACTION", "AFFECTED", "MESSAGES", "REASON")
                .rightAlign(4)
                .maxWidth(1, 24)
                .maxWidth(6, 60);
        for (OpsActionViews.Audit a : page.items()) {
            List<UUID> ids = a.messageIds();
            String messages = ids.isEmpty() ? "-" : ids.get(0) + (ids.size() > 1 ? " +" + (ids.size() - 1) : "");
            t.row(instant(a.at()), a.actor(), a.role(), a.action(), a.affected(), messages, a.reason());
        }
        return t.size() == 0 ? "no audit entries\n" : t.render();
    }

    static String aggregate(OpsViews.Row r) {
        String type = r.aggregateType();
        String id = r.aggregateId();
        return type == null && id == null ? null : type + "/" + id;
    }

    private static String lease(OpsViews.Lease l) {
        if (l == null) {
            return "none";
        }
        return "held by " + l.lockedBy() + " since " + instant(l.lockedAt()) + " (token " + l.leaseToken()
                + "), expires " + instant(l.expiresAt());
    }

    private static String blocker(OpsViews.Blocker b) {
        if (b == null) {
            return "nothing";
        }
        String code = b.lastErrorCode();
        return b.id() + " (version " + b.aggregateVersion() + ", " + b.status() + (code == null ? "" : ", " + code)
                + ")";
    }

    /** One line of a key: value block, keys padded so the values line up. */
    static String kv(String key, Object value) {
        return kv(key, value, 17);
    }

    static String kv(String key, Object value, int width) {
        return String.format("%-" + width + "s %s\n", key + ":", value == null ? "-" : value);
    }
}
