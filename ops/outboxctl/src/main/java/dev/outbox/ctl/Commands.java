package dev.outbox.ctl;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** The commands of {@link Outboxctl}, one class each. */
final class Commands {
    private Commands() {}

    /**
     * What every command shares: the client from the global options, and the mapping of failures
     * to exit codes and one-line messages (never containing the token).
     */
    abstract static class Base implements Callable<Integer> {
        @ParentCommand
        Outboxctl root;

        @Spec
        CommandSpec spec;

        @Override
        public final Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            try {
                return run(root.client(), out, err);
            } catch (ServerError e) {
                err.println(e.status() + " " + e.code() + ": " + e.detail());
                for (ServerError.FieldError f : e.errors()) {
                    err.println("  " + f.field() + ": " + f.message());
                }
                if (e.status() == 401) {
                    err.println("  (set OUTBOX_OPS_TOKEN or pass --token; the read-only token can only read)");
                }
                return Outboxctl.SERVER_ERROR;
            } catch (Unreachable e) {
                err.println(e.getMessage() + " (check --url / OUTBOX_URL and that the service is running)");
                return Outboxctl.UNREACHABLE;
            } finally {
                out.flush();
                err.flush();
            }
        }

        abstract int run(OpsClient client, PrintWriter out, PrintWriter err);

        boolean json() {
            return root.json();
        }

        /** Prints an answer as indented JSON. */
        static void printJson(PrintWriter out, JsonNode node) {
            try {
                out.println(OpsClient.JSON.writeValueAsString(node));
            } catch (JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
        }

        CommandLine.ParameterException usage(String message) {
            return new CommandLine.ParameterException(spec.commandLine(), message);
        }
    }

    /** Turns {@code --from}/{@code --to} values into instants, as a usage error when they are not times. */
    static final class TimeConverter implements CommandLine.ITypeConverter<Instant> {
        @Override
        public Instant convert(String value) {
            try {
                return Times.parse(value, Clock.systemUTC());
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }

    static String upper(String s) {
        return s == null ? null : s.trim().toUpperCase(Locale.ROOT);
    }

    static String str(Object o) {
        return o == null ? null : o.toString();
    }

    @Command(
            name = "stats",
            mixinStandardHelpOptions = true,
            description = "Counts by status, published in the last hour, oldest pending age, parked by error code.")
    static final class Stats extends Base {
        @Override
        int run(OpsClient client, PrintWriter out, PrintWriter err) {
            JsonNode s = client.get("/ops/outbox/stats");
            if (json()) {
                printJson(out, s);
            } else {
                out.print(Views.stats(s));
            }
            return Outboxctl.OK;
        }
    }

    @Command(
            name = "list",
            mixinStandardHelpOptions = true,
            description = {
                "Search outbox messages, newest first.",
                "Example: outboxctl list --status PARKED --error-code UNROUTABLE --from 2h"
            })
    static final class ListRows extends Base {
        @Option(
                names = "--status",
                paramLabel = "STATUS",
                description = "PENDING, IN_PROGRESS, PUBLISHED, RETRYABLE_FAILED, PARKED or CANCELLED")
        String status;

        @Option(names = "--type", paramLabel = "TYPE", description = "message type, e.g. order.created")
        String type;

        @Option(names = "--aggregate-type", paramLabel = "TYPE", description = "e.g. order")
        String aggregateType;

        @Option(names = "--aggregate-id", paramLabel = "ID", description = "e.g. the order id")
        String aggregateId;

        @Option(
                names = "--correlation-id",
                paramLabel = "ID",
                description = "the X-Correlation-Id of the request that wrote it")
        String correlationId;

        @Option(names = "--tenant", paramLabel = "TENANT", description = "tenant id")
        String tenant;

        @Option(names = "--error-code", paramLabel = "CODE", description = "last error code, e.g. UNROUTABLE")
        String errorCode;

        @Option(
                names = "--from",
                converter = TimeConverter.class,
                paramLabel = "TIME",
                description = "created at or after: 2026-11-30T09:00:00Z, 2026-11-30, or an age like 2h")
        Instant from;

        @Option(
                names = "--to",
                converter = TimeConverter.class,
                paramLabel = "TIME",
                description = "created before (same forms as --from)")
        Instant to;

        @Option(names = "--limit", paramLabel = "N", description = "rows per page, 1-500 (default 50; 500 with --all)")
        Integer limit;

        @Option(names = "--after", paramLabel = "CURSOR", description = "the cursor a previous page printed")
        String after;

        @Option(names = "--all", description = "follow the cursors and print every matching row")
        boolean all;

        @Override
        int run(OpsClient client, PrintWriter out, PrintWriter err) {
            Map<String, String> q = OpsClient.params(
                    "status",
                    upper(status),
                    "messageType",
                    type,
                    "aggregateType",
                    aggregateType,
                    "aggregateId",
                    aggregateId,
                    "correlationId",
                    correlationId,
                    "tenantId",
                    tenant,
                    "errorCode",
                    upper(errorCode),
                    "createdFrom",
                    str(from),
                    "createdTo",
                    str(to),
                    "limit",
                    str(limit == null && all ? Integer.valueOf(500) : limit));
            List<JsonNode> rows = new ArrayList<>();
            String cursor = after;
            String next;
            Set<String> seen = new HashSet<>();
            JsonNode firstPage = null;
            do {
                Map<String, String> page = new LinkedHashMap<>(q);
                page.put("after", cursor);
                JsonNode answer = client.get("/ops/outbox", page);
                if (firstPage == null) {
                    firstPage = answer;
                }
                answer.path("items").forEach(rows::add);
                next = Format.text(answer, "next");
                // a cursor seen before would loop forever: stop rather than trust it
                cursor = next != null && seen.add(next) ? next : null;
            } while (all && cursor != null);

            if (json()) {
                if (all) {
                    ObjectNode merged = OpsClient.JSON.createObjectNode();
                    ArrayNode items = merged.putArray("items");
                    rows.forEach(items::add);
                    merged.putNull("next");
                    printJson(out, merged);
                } else {
                    printJson(out, firstPage);
                }
                return Outboxctl.OK;
            }
            out.print(Views.list(rows));
            if (!rows.isEmpty()) {
                out.println(rows.size() + " message(s)"
                        + (!all && next != null ? "; more match: add --after " + next + " (or --all)" : ""));
            }
            return Outboxctl.OK;
        }
    }

    @Command(
            name = "show",
            mixinStandardHelpOptions = true,
            description = "One message: status, attempts, next attempt, last error, lease, what blocks it, payload.")
    static final class Show extends Base {
        @Parameters(paramLabel = "ID", description = "the message id (the outbox row id, the AMQP messageId)")
        String id;

        @Override
        int run(OpsClient client, PrintWriter out, PrintWriter err) {
            JsonNode row = client.get("/ops/outbox/" + OpsClient.segment(id));
            if (json()) {
                printJson(out, row);
            } else {
                out.print(Views.show(row));
            }
            return Outboxctl.OK;
        }
    }

    /** A repair of one message: POST with an optional reason, print what changed. */
    abstract static class SingleAction extends Base {
        @Parameters(paramLabel = "ID", description = "the message id")
        String id;

        abstract String verb();

        abstract String reason();

        @Override
        int run(OpsClient client, PrintWriter out, PrintWriter err) {
            JsonNode r = client.post(
                    "/ops/outbox/" + OpsClient.segment(id) + "/" + verb(),
                    OpsClient.body(OpsClient.params("reason", reason())));
            if (json()) {
                printJson(out, r);
            } else {
                out.print(Views.action(r));
            }
            return Outboxctl.OK;
        }
    }

    @Command(
            name = "retry",
            mixinStandardHelpOptions = true,
            description = "Make a PARKED or RETRYABLE_FAILED message due now, same id, fresh attempt budget.")
    static final class Retry extends SingleAction {
        @Option(names = "--reason", paramLabel = "TEXT", description = "why, for the audit trail")
        String reason;

        @Override
        String verb() {
            return "retry";
        }

        @Override
        String reason() {
            return reason;
        }
    }

    @Command(
            name = "cancel",
            mixinStandardHelpOptions = true,
            description = "Never send a PENDING, RETRYABLE_FAILED or PARKED message. The service requires --reason.")
    static final class Cancel extends SingleAction {
        @Option(
                names = "--reason",
                paramLabel = "TEXT",
                description = "why (required by the service, kept in the audit trail)")
        String reason;

        @Override
        String verb() {
            return "cancel";
        }

        @Override
        String reason() {
            return reason;
        }
    }

    @Command(
            name = "release",
            mixinStandardHelpOptions = true,
            description = "Take a stuck IN_PROGRESS message from its relay (its late outcome is then refused).")
    static final class Release extends SingleAction {
        @Option(names = "--reason", paramLabel = "TEXT", description = "why, for the audit trail")
        String reason;

        @Override
        String verb() {
            return "release";
        }

        @Override
        String reason() {
            return reason;
        }
    }

    @Command(
            name = "replay",
            mixinStandardHelpOptions = true,
            description = {
                "Publish PUBLISHED messages again, same ids (consumers deduplicate).",
                "One message (replay ID) or every published message of an aggregate, in version order",
                "(replay --aggregate-type T --aggregate-id A)."
            })
    static final class Replay extends Base {
        @Parameters(paramLabel = "ID", arity = "0..1", description = "the message id")
        String id;

        @Option(names = "--aggregate-type", paramLabel = "TYPE", description = "replay a whole aggregate: its type")
        String aggregateType;

        @Option(names = "--aggregate-id", paramLabel = "ID", description = "replay a whole aggregate: its id")
        String aggregateId;

        @Option(names = "--reason", paramLabel = "TEXT", description = "why, for the audit trail")
        String reason;

        @Override
        int run(OpsClient client, PrintWriter out, PrintWriter err) {
            boolean aggregate = aggregateType != null || aggregateId != null;
            if (aggregate == (id != null)) {
                throw usage("Give either a message ID or --aggregate-type and --aggregate-id");
            }
            JsonNode r;
            if (aggregate) {
                if (aggregateType == null || aggregateId == null) {
                    throw usage("--aggregate-type and --aggregate-id go together");
                }
                r = client.post(
                        "/ops/outbox/replay-aggregate",
                        OpsClient.body(OpsClient.params(
                                "aggregateType", aggregateType, "aggregateId", aggregateId, "reason", reason)));
            } else {
                r = client.post(
                        "/ops/outbox/" + OpsClient.segment(id) + "/replay",
                        OpsClient.body(OpsClient.params("reason", reason)));
            }
            if (json()) {
                printJson(out, r);
            } else {
                out.print(Views.action(r));
            }
            return Outboxctl.OK;
        }
    }

    @Command(
            name = "retry-bulk",
            mixinStandardHelpOptions = true,
            description = {
                "Retry every PARKED / RETRYABLE_FAILED message matching a filter, in chunks.",
                "Counts first (a dry run), then retries at most that many; --dry-run only counts.",
                "Example: outboxctl retry-bulk --error-code UNROUTABLE --from 2h --dry-run"
            })
    static final class RetryBulk extends Base {
        static final int BAR_WIDTH = 30;

        @Option(names = "--error-code", paramLabel = "CODE", description = "last error code, e.g. UNROUTABLE")
        String errorCode;

        @Option(names = "--type", paramLabel = "TYPE", description = "message type")
        String type;

        @Option(names = "--status", paramLabel = "STATUS", description = "PARKED or RETRYABLE_FAILED (default: both)")
        String status;

        @Option(
                names = "--from",
                converter = TimeConverter.class,
                paramLabel = "TIME",
                description = "created at or after (ISO instant, date, or an age like 2h)")
        Instant from;

        @Option(names = "--to", converter = TimeConverter.class, paramLabel = "TIME", description = "created before")
        Instant to;

        @Option(names = "--dry-run", description = "only count what matches; change nothing")
        boolean dryRun;

        @Option(names = "--reason", paramLabel = "TEXT", description = "why, for the audit trail")
        String reason;

        @Option(
                names = "--chunk",
                paramLabel = "N",
                defaultValue = "500",
                description = "messages per request, 1-1000 (default ${DEFAULT-VALUE})")
        int chunk;

        @Override
        int run(OpsClient client, PrintWriter out, PrintWriter err) {
            if (errorCode == null && type == null && from == null && to == null) {
                throw usage("Name at least one of --error-code, --type, --from, --to");
            }
            if (chunk < 1 || chunk > 1000) {
                throw usage("--chunk must be between 1 and 1000");
            }
            JsonNode dry = client.post("/ops/outbox/retry", request(true, null));
            long matched = dry.path("matched").asLong();
            if (dryRun) {
                if (json()) {
                    printJson(out, dry);
                } else {
                    out.println(matched + " message(s) match " + filter() + "; dry run, nothing changed");
                }
                return Outboxctl.OK;
            }
            long done = 0;
            long remaining = matched;
            int chunks = 0;
            List<String> ids = new ArrayList<>();
            Progress progress = new Progress(err, System.console() != null);
            if (matched > 0) {
                progress.show(0, matched);
            }
            // never more than the count the dry run found: rows that fail again meanwhile are not chased
            while (done < matched) {
                int limit = (int) Math.min(chunk, matched - done);
                JsonNode r = client.post("/ops/outbox/retry", request(false, limit));
                chunks++;
                int retried = r.path("retried").asInt();
                r.path("ids").forEach(i -> ids.add(i.asText()));
                done += retried;
                remaining = r.path("remaining").asLong();
                progress.show(done, matched);
                if (retried == 0 || remaining == 0) {
                    break;
                }
            }
            progress.end();
            if (json()) {
                ObjectNode summary = OpsClient.JSON.createObjectNode();
                summary.put("dryRun", false);
                summary.put("matched", matched);
                summary.put("retried", done);
                summary.put("remaining", remaining);
                summary.put("chunks", chunks);
                ArrayNode a = summary.putArray("ids");
                ids.forEach(a::add);
                printJson(out, summary);
                return Outboxctl.OK;
            }
            if (matched == 0) {
                out.println("nothing matches " + filter() + "; nothing retried");
                return Outboxctl.OK;
            }
            out.println("retried " + done + " of " + matched + " matching message(s) in " + chunks + " chunk(s)");
            if (remaining > 0) {
                out.println(remaining + " still match (failed again or new since the count): check the cause,"
                        + " then run again");
            }
            return Outboxctl.OK;
        }

        private ObjectNode request(boolean dry, Integer limit) {
            Map<String, Object> b = new LinkedHashMap<>();
            b.put("status", upper(status));
            b.put("errorCode", upper(errorCode));
            b.put("messageType", type);
            b.put("createdFrom", str(from));
            b.put("createdTo", str(to));
            b.put("dryRun", dry);
            b.put("limit", limit);
            b.put("reason", reason);
            return OpsClient.body(b);
        }

        private String filter() {
            List<String> parts = new ArrayList<>();
            if (status != null) {
                parts.add("status " + upper(status));
            }
            if (errorCode != null) {
                parts.add("error code " + upper(errorCode));
            }
            if (type != null) {
                parts.add("type " + type);
            }
            if (from != null) {
                parts.add("created from " + from);
            }
            if (to != null) {
                parts.add("created before " + to);
            }
            return "(" + String.join(", ", parts) + ")";
        }
    }

    /** The progress bar on stderr: redrawn in place on a terminal, one line per step otherwise. */
    static final class Progress {
        private final PrintWriter err;
        private final boolean redraw;
        private boolean drawn;

        Progress(PrintWriter err, boolean redraw) {
            this.err = err;
            this.redraw = redraw;
        }

        void show(long done, long total) {
            String bar = ProgressBar.render(done, total, RetryBulk.BAR_WIDTH);
            if (redraw) {
                err.print("\r" + bar);
            } else {
                err.println(bar);
            }
            err.flush();
            drawn = true;
        }

        void end() {
            if (redraw && drawn) {
                err.println();
                err.flush();
            }
        }
    }

    @Command(
            name = "reconcile",
            mixinStandardHelpOptions = true,
            description = "Orders missing events, expired leases, blocked aggregates, side effects left pending.")
    static final class Reconcile extends Base {
        @Override
        int run(OpsClient client, PrintWriter out, PrintWriter err) {
            JsonNode r = client.get("/ops/outbox/reconcile");
            if (json()) {
                printJson(out, r);
            } else {
                out.print(Views.reconcile(r));
            }
            return Outboxctl.OK;
        }
    }

    @Command(
            name = "audit",
            mixinStandardHelpOptions = true,
            description = "Who repaired what, when and why, newest first.")
    static final class Audit extends Base {
        @Option(names = "--message-id", paramLabel = "ID", description = "only entries touching this message")
        String messageId;

        @Option(names = "--limit", paramLabel = "N", description = "entries, 1-500 (default 50)")
        Integer limit;

        @Option(names = "--after", paramLabel = "CURSOR", description = "the cursor a previous page printed")
        String after;

        @Override
        int run(OpsClient client, PrintWriter out, PrintWriter err) {
            JsonNode page = client.get(
                    "/ops/audit", OpsClient.params("messageId", messageId, "limit", str(limit), "after", after));
            if (json()) {
                printJson(out, page);
                return Outboxctl.OK;
            }
            out.print(Views.audit(page));
            String next = Format.text(page, "next");
            if (next != null) {
                out.println("more entries: add --after " + next);
            }
            return Outboxctl.OK;
        }
    }
}
