package dev.outbox.ctl;

import static dev.outbox.ctl.Format.instant;
import static dev.outbox.ctl.Format.text;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.Map;

/** The readable form of each answer of the operator API. Pure: JSON in, text out. */
final class Views {
    private static final String[] STATUSES = {"PENDING", "IN_PROGRESS", "RETRYABLE_FAILED", "PARKED"};

    private Views() {}

    /** {@code GET /ops/outbox/stats}. */
    static String stats(JsonNode s) {
        Table counts = Table.of("STATUS", "COUNT").rightAlign(1);
        JsonNode c = s.path("counts");
        for (String st : STATUSES) {
            counts.row(st, c.path(st).asLong());
        }
        // any status a newer server adds
        for (Iterator<String> it = c.fieldNames(); it.hasNext(); ) {
            String st = it.next();
            if (!java.util.List.of(STATUSES).contains(st)) {
                counts.row(st, c.path(st).asLong());
            }
        }
        StringBuilder out = new StringBuilder(counts.render()).append('\n');
        out.append(kv("published last hour", s.path("publishedLastHour").asLong(), 20));
        out.append(kv(
                "oldest pending age",
                Format.age(s.path("oldestPendingAgeSeconds").asDouble()),
                20));
        out.append(kv("blocked aggregates", s.path("blockedAggregates").asLong(), 20));
        JsonNode parked = s.path("parkedByErrorCode");
        out.append('\n');
        if (parked.isEmpty()) {
            out.append("no parked messages\n");
        } else {
            Table byCode = Table.of("PARKED BY ERROR CODE", "COUNT").rightAlign(1);
            for (Iterator<Map.Entry<String, JsonNode>> it = parked.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                byCode.row(e.getKey(), e.getValue().asLong());
            }
            out.append(byCode.render());
        }
        return out.toString();
    }

    /** The rows of a {@code GET /ops/outbox} page (or of several pages put together). */
    static String list(Iterable<JsonNode> rows) {
        Table t = Table.of("ID", "STATUS", "TYPE", "AGGREGATE", "VER", "ATTEMPTS", "ERROR", "CREATED")
                .maxWidth(2, 32)
                .maxWidth(3, 40)
                .rightAlign(4)
                .rightAlign(5);
        for (JsonNode r : rows) {
            t.row(
                    text(r, "id"),
                    text(r, "status"),
                    text(r, "messageType"),
                    aggregate(r),
                    text(r, "aggregateVersion"),
                    r.path("attemptCount").asInt(),
                    text(r, "lastErrorCode"),
                    instant(text(r, "createdAt")));
        }
        return t.size() == 0 ? "no messages match\n" : t.render();
    }

    /** {@code GET /ops/outbox/{id}}: every field that helps, then what to do next. */
    static String show(JsonNode r) {
        StringBuilder out = new StringBuilder();
        String id = text(r, "id");
        out.append(kv("id", id));
        out.append(kv("status", text(r, "status")));
        out.append(kv(
                "message type",
                text(r, "messageType") + " v" + r.path("messageVersion").asInt(1)));
        String version = text(r, "aggregateVersion");
        out.append(kv(
                "aggregate", aggregate(r) + (version == null ? " (no version: not ordered)" : " version " + version)));
        out.append(kv("exchange", text(r, "exchange")));
        out.append(kv("routing key", text(r, "routingKey")));
        out.append(kv("attempts", r.path("attemptCount").asInt()));
        out.append(kv("next attempt at", instant(text(r, "nextAttemptAt"))));
        out.append(kv(
                "last error",
                text(r, "lastErrorCode") == null
                        ? null
                        : text(r, "lastErrorCode")
                                + (text(r, "lastErrorMessage") == null ? "" : ": " + text(r, "lastErrorMessage"))));
        out.append(kv("lease", lease(r.get("lease"))));
        out.append(kv("blocked by", blocker(r.get("blockedBy"))));
        out.append(kv("created at", instant(text(r, "createdAt"))));
        out.append(kv("published at", instant(text(r, "publishedAt"))));
        out.append(kv("correlation id", text(r, "correlationId")));
        out.append(kv("causation id", text(r, "causationId")));
        out.append(kv("trace id", text(r, "traceId")));
        out.append(kv("tenant", text(r, "tenantId")));
        JsonNode payload = r.get("payload");
        if (payload != null && !payload.isNull()) {
            out.append(kv("payload", payload.toString()));
        } else if (r.hasNonNull("payloadBytes")) {
            out.append(kv(
                    "payload",
                    r.get("payloadBytes").asInt() + " bytes, sha256 " + text(r, "payloadSha256")
                            + " (content shown to the operator token only)"));
        }
        JsonNode headers = r.get("headers");
        out.append(kv("headers", headers == null || headers.isNull() ? null : headers.toString()));
        out.append('\n').append(kv("next step", nextStep(r)));
        return out.toString();
    }

    /** What an operator should do about this row, in one line. */
    static String nextStep(JsonNode r) {
        String id = text(r, "id");
        String status = String.valueOf(text(r, "status"));
        String code = text(r, "lastErrorCode");
        JsonNode blocker = r.get("blockedBy");
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
                if (blocker != null && !blocker.isNull()) {
                    return "waits for version " + text(blocker, "aggregateVersion") + " of its aggregate: fix that one"
                            + " first (outboxctl show " + text(blocker, "id") + ")";
                }
                return status.equals("PENDING")
                        ? "waiting for a relay: if it stays here, is a relay running?"
                                + " (outboxctl stats: oldest pending age)"
                        : "the relay retries it by itself at its next attempt; outboxctl retry " + id
                                + " makes it due now";
            case "PARKED":
                String step = parkedStep(code, id, text(r, "exchange"), text(r, "routingKey"));
                return ("PAYLOAD_INVALID".equals(code) || "UNENCODABLE".equals(code))
                                && r.hasNonNull("aggregateVersion")
                        ? step + " (it has a version: read ops/RUNBOOK.md on cancelling versioned rows first)"
                        : step;
            default:
                return "see ops/RUNBOOK.md";
        }
    }

    private static String parkedStep(String code, String id, String exchange, String routingKey) {
        if (code == null) {
            return "outboxctl retry " + id + " once the cause is fixed";
        }
        switch (code) {
            case "UNROUTABLE":
                return "no queue is bound to " + exchange + " for routing key " + routingKey
                        + ": fix the bindings (rabbitmqctl list_bindings -p <vhost>), then outboxctl retry " + id;
            case "EXCHANGE_NOT_FOUND":
                return "exchange " + exchange + " does not exist in the relay's vhost: declare it (restarting the"
                        + " relay declares the topology), then outboxctl retry " + id;
            case "ACCESS_REFUSED":
                return "the relay's user may not write to " + exchange + " (rabbitmqctl list_permissions -p <vhost>):"
                        + " grant it, then outboxctl retry " + id;
            case "PAYLOAD_INVALID":
                return "the payload breaks its contract and will never be sent: outboxctl cancel " + id
                        + " --reason '...' and emit it again from the source";
            case "UNENCODABLE":
                return "the row can never become an AMQP message (its last error names the field) and was never"
                        + " sent: outboxctl cancel " + id + " --reason '...' and write it again within the limits";
            default:
                return "it spent its attempts on " + code + ": check broker health and the relay's log, then"
                        + " outboxctl retry " + id;
        }
    }

    /** {@code {"action","affected","ids"}} of a single repair. */
    static String action(JsonNode a) {
        StringBuilder out = new StringBuilder();
        out.append(text(a, "action"))
                .append(": ")
                .append(a.path("affected").asLong())
                .append(" message(s)");
        JsonNode ids = a.path("ids");
        if (ids.isArray() && !ids.isEmpty()) {
            out.append('\n');
            for (JsonNode id : ids) {
                out.append("  ").append(id.asText()).append('\n');
            }
            return out.toString();
        }
        return out.append('\n').toString();
    }

    /** {@code GET /ops/outbox/reconcile}. */
    static String reconcile(JsonNode r) {
        StringBuilder out = new StringBuilder();
        if (r.path("ok").asBoolean(false)) {
            return "OK: every order has its events, no expired leases, no blocked aggregates, no consumer waiting"
                    + " for a version, no side effects left pending\n";
        }
        out.append("NOT OK: see below\n");
        JsonNode missing = r.path("ordersMissingEvents");
        if (!missing.isEmpty()) {
            Table t = Table.of("ORDER", "ORDER VERSION", "LAST OUTBOX VERSION")
                    .rightAlign(1)
                    .rightAlign(2);
            missing.forEach(m -> t.row(text(m, "orderId"), text(m, "orderVersion"), text(m, "lastOutboxVersion")));
            out.append("\nOrders whose latest change has no outbox row (written around the outbox):\n")
                    .append(t.render());
        }
        JsonNode expired = r.path("expiredLeases");
        if (!expired.isEmpty()) {
            Table t =
                    Table.of("ID", "TYPE", "LOCKED BY", "LOCKED AT", "ATTEMPTS").rightAlign(4);
            expired.forEach(e -> t.row(
                    text(e, "id"),
                    text(e, "messageType"),
                    text(e, "lockedBy"),
                    instant(text(e, "lockedAt")),
                    text(e, "attemptCount")));
            out.append("\nExpired leases (a relay took them and went quiet; outboxctl release <id>):\n")
                    .append(t.render());
        }
        JsonNode blocked = r.path("blockedAggregates");
        if (!blocked.isEmpty()) {
            Table t = Table.of("AGGREGATE", "PARKED ID", "PARKED VER", "ERROR", "WAITING")
                    .rightAlign(2)
                    .rightAlign(4);
            blocked.forEach(b -> t.row(
                    text(b, "aggregateType") + "/" + text(b, "aggregateId"),
                    text(b, "parkedId"),
                    text(b, "parkedVersion"),
                    text(b, "errorCode"),
                    text(b, "waiting")));
            out.append("\nAggregates held back by a parked version (retry or cancel the parked one):\n")
                    .append(t.render());
        }
        JsonNode waiting = r.path("waitingConsumers");
        if (!waiting.isEmpty()) {
            Table t = Table.of("CONSUMER", "AGGREGATE", "WAITS FOR VER", "HELD", "SINCE")
                    .rightAlign(2)
                    .rightAlign(3);
            waiting.forEach(w -> t.row(
                    text(w, "consumerName"),
                    text(w, "aggregateType") + "/" + text(w, "aggregateId"),
                    text(w, "waitingForVersion"),
                    text(w, "held"),
                    instant(text(w, "heldSince"))));
            out.append("\nConsumers holding later versions while the next one has not come (was it cancelled?):\n")
                    .append(t.render());
        }
        JsonNode effects = r.path("pendingSideEffects");
        if (!effects.isEmpty()) {
            Table t = Table.of("CONSUMER", "MESSAGE", "EFFECT", "STARTED");
            effects.forEach(e -> t.row(
                    text(e, "consumerName"), text(e, "messageId"), text(e, "effect"), instant(text(e, "startedAt"))));
            out.append("\nSide effects started but never finished (check by hand whether they happened):\n")
                    .append(t.render());
        }
        return out.toString();
    }

    /** {@code GET /ops/audit}. */
    static String audit(JsonNode page) {
        Table t = Table.of("AT", "ACTOR", "ROLE", "ACTION", "AFFECTED", "MESSAGES", "REASON")
                .rightAlign(4)
                .maxWidth(1, 24)
                .maxWidth(6, 60);
        for (JsonNode a : page.path("items")) {
            JsonNode ids = a.path("messageIds");
            String messages =
                    ids.isEmpty() ? "-" : ids.get(0).asText() + (ids.size() > 1 ? " +" + (ids.size() - 1) : "");
            t.row(
                    instant(text(a, "at")),
                    text(a, "actor"),
                    text(a, "role"),
                    text(a, "action"),
                    text(a, "affected"),
                    messages,
                    text(a, "reason"));
        }
        return t.size() == 0 ? "no audit entries\n" : t.render();
    }

    static String aggregate(JsonNode r) {
        String type = text(r, "aggregateType");
        String id = text(r, "aggregateId");
        return type == null && id == null ? null : type + "/" + id;
    }

    private static String lease(JsonNode l) {
        if (l == null || l.isNull()) {
            return "none";
        }
        return "held by " + text(l, "lockedBy") + " since " + instant(text(l, "lockedAt")) + " (token "
                + text(l, "leaseToken") + "), expires " + instant(text(l, "expiresAt"));
    }

    private static String blocker(JsonNode b) {
        if (b == null || b.isNull()) {
            return "nothing";
        }
        String code = text(b, "lastErrorCode");
        return text(b, "id") + " (version " + text(b, "aggregateVersion") + ", " + text(b, "status")
                + (code == null ? "" : ", " + code) + ")";
    }

    /** One line of a key: value block, keys padded so the values line up. */
    static String kv(String key, Object value) {
        return kv(key, value, 17);
    }

    static String kv(String key, Object value, int width) {
        return String.format("%-" + width + "s %s\n", key + ":", value == null ? "-" : value);
    }
}
