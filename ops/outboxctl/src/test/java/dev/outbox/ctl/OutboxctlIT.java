package dev.outbox.ctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.outbox.api.ApiApp;
import dev.outbox.config.Settings;
import dev.outbox.testkit.TestDatabase;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** outboxctl, in-process, against the real operator API on a real database. */
class OutboxctlIT {
    static final String OPERATOR = "op-secret-" + UUID.randomUUID();
    static final String READER = "read-secret-" + UUID.randomUUID();
    private static final Pattern UUID_PATTERN =
            Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
    private static final TestDatabase DB = TestDatabase.get();
    private static ApiApp app;
    private static String url;

    record Result(int code, String out, String err) {}

    @BeforeAll
    static void start() {
        Map<String, String> env = new HashMap<>(DB.env());
        env.put("OUTBOX_HTTP_PORT", "0");
        env.put("OUTBOX_HTTP_HOST", "127.0.0.1");
        env.put("OUTBOX_OPS_TOKEN", OPERATOR);
        env.put("OUTBOX_OPS_READ_TOKEN", READER);
        app = ApiApp.start(new Settings(env));
        url = "http://127.0.0.1:" + app.port();
    }

    @AfterAll
    static void stop() {
        app.close();
    }

    @BeforeEach
    void clean() {
        DB.reset();
    }

    /** Runs outboxctl with these arguments; no output may ever contain a token. */
    private static Result cli(String token, String... args) {
        List<String> all = new ArrayList<>(List.of("--url", url, "--operator", "alice"));
        if (token != null) {
            all.addAll(List.of("--token", token));
        }
        all.addAll(List.of(args));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        // an empty environment: nothing of the machine running the tests leaks in
        int code = new CommandLine(new Outboxctl(Map.of()))
                .setOut(new PrintWriter(out))
                .setErr(new PrintWriter(err))
                .execute(all.toArray(String[]::new));
        Result r = new Result(code, out.toString(), err.toString());
        for (String secret : List.of(OPERATOR, READER)) {
            assertFalse(r.out().contains(secret) || r.err().contains(secret), "a token was printed: " + r);
        }
        return r;
    }

    private static Result op(String... args) {
        return cli(OPERATOR, args);
    }

    private static Result ok(Result r) {
        assertEquals(0, r.code(), "exit code; stderr: " + r.err());
        return r;
    }

    /** An outbox row in the given state, as the relay would have left it. */
    static UUID row(String status, String errorCode, String type, String aggregate, Long version) {
        UUID id = UUID.randomUUID();
        DB.update(
                "INSERT INTO message_outbox (id, aggregate_type, aggregate_id, aggregate_version, message_type,"
                        + " exchange_name, routing_key, payload, correlation_id, tenant_id) VALUES (?, 'order', ?, ?, ?,"
                        + " 'orders.events', ?, '{\"total\":\"42.50\"}'::jsonb, 'corr-' || ?, 'tenant-a')",
                id,
                aggregate,
                version,
                type,
                type,
                aggregate);
        switch (status) {
            case "PENDING" -> {}
            case "PUBLISHED" ->
                DB.update(
                        "UPDATE message_outbox SET status = 'PUBLISHED', published_at = now(),"
                                + " attempt_count = 1 WHERE id = ?",
                        id);
            case "IN_PROGRESS" ->
                DB.update(
                        "UPDATE message_outbox SET status = 'IN_PROGRESS', locked_by = 'relay-x',"
                                + " locked_at = now() - interval '1 hour', lease_token = nextval('message_outbox_lease_token_seq'),"
                                + " attempt_count = 1 WHERE id = ?",
                        id);
            default ->
                DB.update(
                        "UPDATE message_outbox SET status = ?, last_error_code = ?,"
                                + " last_error_message = 'basic.return 312 NO_ROUTE', attempt_count = 5 WHERE id = ?",
                        status,
                        errorCode,
                        id);
        }
        return id;
    }

    private static String status(UUID id) {
        return (String) DB.scalar("SELECT status FROM message_outbox WHERE id = ?", id);
    }

    private static boolean hasLine(String text, String regex) {
        return Pattern.compile("(?m)^" + regex + "$").matcher(text).find();
    }

    private static List<String> idsIn(String text) {
        List<String> ids = new ArrayList<>();
        Matcher m = UUID_PATTERN.matcher(text);
        while (m.find()) {
            ids.add(m.group());
        }
        return ids;
    }

    @Test
    void statsPrintsCountsAndParkedCodesAsATable() {
        row("PARKED", "UNROUTABLE", "order.created", "s1", 1L);
        row("PARKED", "UNROUTABLE", "order.created", "s2", 1L);
        row("PARKED", "PAYLOAD_INVALID", "order.created", "s3", 1L);
        row("PENDING", null, "order.created", "s4", 1L);
        row("PUBLISHED", null, "order.created", "s5", 1L);
        Result r = ok(cli(READER, "stats"));
        assertTrue(hasLine(r.out(), "STATUS\\s+COUNT"), r.out());
        assertTrue(hasLine(r.out(), "PENDING\\s+1"), r.out());
        assertTrue(hasLine(r.out(), "PARKED\\s+3"), r.out());
        assertTrue(hasLine(r.out(), "published last hour:\\s+1"), r.out());
        assertTrue(hasLine(r.out(), "UNROUTABLE\\s+2"), r.out());
        assertTrue(hasLine(r.out(), "PAYLOAD_INVALID\\s+1"), r.out());
    }

    /**
     * A status or error code a newer version wrote (issue 42: a rolling upgrade) is listed, found,
     * shown and counted as the server sends it; a repair of such a row is refused with the reason,
     * and a filter value of another form than a stored one is the server's 400, printed.
     */
    @Test
    void aStatusOrCodeANewerVersionWroteIsListedFoundShownAndCounted() {
        UUID archived = row("ARCHIVED", "FUTURE_727", "order.created", "n1", 1L);
        UUID parked = row("PARKED", "FUTURE_727", "order.created", "n2", 1L);

        // the CLI upper-cases what it is given, as for every status
        Result list = ok(cli(READER, "list", "--status", "archived"));
        assertEquals(List.of(archived.toString()), idsIn(list.out()), list.out());
        assertTrue(
                hasLine(list.out(), archived + "\\s+ARCHIVED\\s+order\\.created\\s+.*\\sFUTURE_727\\s+\\S+"),
                list.out());
        Result byCode = ok(cli(READER, "list", "--error-code", "FUTURE_727"));
        assertEquals(Set.of(archived.toString(), parked.toString()), new HashSet<>(idsIn(byCode.out())), byCode.out());

        Result show = ok(cli(READER, "show", archived.toString()));
        assertTrue(hasLine(show.out(), "status:\\s+ARCHIVED"), show.out());
        assertTrue(hasLine(show.out(), "last error:\\s+FUTURE_727: basic\\.return 312 NO_ROUTE"), show.out());
        assertTrue(show.out().contains("status ARCHIVED is not one this outboxctl knows"), show.out());

        Result stats = ok(cli(READER, "stats"));
        assertTrue(hasLine(stats.out(), "ARCHIVED\\s+1"), stats.out());
        assertTrue(hasLine(stats.out(), "PARKED\\s+1"), stats.out());
        assertTrue(hasLine(stats.out(), "FUTURE_727\\s+1"), stats.out());

        Result refused = op("retry", archived.toString());
        assertEquals(Outboxctl.SERVER_ERROR, refused.code(), refused.toString());
        assertTrue(
                refused.err()
                        .startsWith("409 invalid_state: message " + archived
                                + " is ARCHIVED, a status this version does not know;"),
                refused.err());
        assertEquals("ARCHIVED", status(archived));

        Result malformed = cli(READER, "list", "--status", "ARCH-IVED");
        assertEquals(Outboxctl.SERVER_ERROR, malformed.code(), malformed.toString());
        assertTrue(malformed.err().startsWith("400 validation_failed: "), malformed.err());
        assertTrue(malformed.err().contains("\n  status: must be a status: "), malformed.err());
    }

    @Test
    void listPagesWithCursorsAndAllFollowsThemToTheEnd() {
        Set<String> parked = new HashSet<>();
        for (int i = 0; i < 7; i++) {
            parked.add(row("PARKED", "UNROUTABLE", "order.created", "p" + i, 1L).toString());
        }
        String published = row("PUBLISHED", null, "order.created", "pub", 1L).toString();

        Result page = ok(op("list", "--status", "PARKED", "--limit", "3"));
        assertEquals(3, idsIn(page.out()).size(), page.out());
        assertTrue(
                hasLine(page.out(), "ID\\s+STATUS\\s+TYPE\\s+AGGREGATE\\s+VER\\s+ATTEMPTS\\s+ERROR\\s+CREATED"),
                page.out());
        Matcher next = Pattern.compile("add --after (\\S+) \\(or --all\\)").matcher(page.out());
        assertTrue(next.find(), page.out());

        Result second = ok(op("list", "--status", "PARKED", "--limit", "3", "--after", next.group(1)));
        List<String> secondIds = idsIn(second.out());
        assertEquals(3, secondIds.size());
        assertTrue(idsIn(page.out()).stream().noneMatch(secondIds::contains), "pages do not overlap");

        Result all = ok(op("list", "--status", "PARKED", "--error-code", "UNROUTABLE", "--limit", "3", "--all"));
        List<String> ids = idsIn(all.out());
        assertEquals(7, ids.size(), all.out());
        assertEquals(parked, new HashSet<>(ids));
        assertFalse(all.out().contains(published));
        assertFalse(all.out().contains("--after"), "nothing more to fetch");
        for (String line : all.out().split("\n")) {
            if (UUID_PATTERN.matcher(line).find()) {
                assertTrue(
                        line.matches(UUID_PATTERN + "\\s+PARKED\\s+order\\.created\\s+order/p\\d\\s+1\\s+5\\s+"
                                + "UNROUTABLE\\s+\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ"),
                        line);
            }
        }

        Result byCorrelation = ok(op("list", "--correlation-id", "corr-p3"));
        assertEquals(1, idsIn(byCorrelation.out()).size(), byCorrelation.out());
        Result byAggregate =
                ok(op("list", "--aggregate-type", "order", "--aggregate-id", "pub", "--tenant", "tenant-a"));
        assertEquals(List.of(published), idsIn(byAggregate.out()));
        assertEquals(
                "no messages match\n",
                ok(op("list", "--type", "nothing.like.this")).out());
    }

    @Test
    void showOfAParkedRowPrintsItsErrorLeaseAndWhatBlocks() {
        UUID v1 = row("PARKED", "UNROUTABLE", "order.created", "agg", 1L);
        UUID v2 = row("PENDING", null, "payment.captured", "agg", 2L);
        Result parked = ok(op("show", v1.toString()));
        assertTrue(parked.out().contains("status:           PARKED\n"), parked.out());
        assertTrue(parked.out().contains("last error:       UNROUTABLE: basic.return 312 NO_ROUTE\n"), parked.out());
        assertTrue(parked.out().contains("attempts:         5\n"), parked.out());
        assertTrue(parked.out().contains("correlation id:   corr-agg\n"), parked.out());
        assertTrue(parked.out().contains("payload:          {\"total\":\"42.50\"}\n"), parked.out());
        assertTrue(parked.out().contains("outboxctl retry " + v1), parked.out());

        Result blocked = ok(op("show", v2.toString()));
        assertTrue(
                blocked.out().contains("blocked by:       " + v1 + " (version 1, PARKED, UNROUTABLE)\n"),
                blocked.out());

        UUID leased = row("IN_PROGRESS", null, "order.created", "l", 1L);
        Result lease = ok(cli(READER, "show", leased.toString()));
        assertTrue(lease.out().contains("lease:            held by relay-x since "), lease.out());
        assertTrue(lease.out().contains("content shown to the operator token only"), lease.out());

        Result missing = cli(READER, "show", UUID.randomUUID().toString());
        assertEquals(1, missing.code());
        assertTrue(missing.err().startsWith("404 not_found: "), missing.err());
    }

    @Test
    void retryMakesTheRowDueAgainAndIsAuditedUnderTheOperatorsName() {
        UUID id = row("PARKED", "UNROUTABLE", "order.created", "r1", 1L);
        Result r = ok(op("retry", id.toString(), "--reason", "bound the queue"));
        assertEquals("RETRY: 1 message(s)\n  " + id + "\n", r.out());
        assertEquals("PENDING", status(id));
        assertEquals(0, DB.count("SELECT attempt_count FROM message_outbox WHERE id = ?", id));
        assertEquals(
                List.of(Map.of("actor", "alice", "action", "RETRY", "reason", "bound the queue")),
                DB.rows("SELECT actor, action, reason FROM ops_audit"));

        Result again = op("retry", id.toString());
        assertEquals(1, again.code());
        assertTrue(again.err().startsWith("409 invalid_state: "), again.err());

        Result audit = ok(op("audit", "--message-id", id.toString()));
        assertTrue(
                hasLine(audit.out(), "\\S+\\s+alice\\s+operator\\s+RETRY\\s+1\\s+" + id + "\\s+bound the queue"),
                audit.out());
    }

    @Test
    void retryBulkDryRunOnlyCounts() {
        for (int i = 0; i < 5; i++) {
            row("PARKED", "UNROUTABLE", "order.created", "b" + i, 1L);
        }
        row("PARKED", "PAYLOAD_INVALID", "order.created", "keep", 1L);
        Result r = ok(op("retry-bulk", "--error-code", "UNROUTABLE", "--dry-run"));
        assertEquals("5 message(s) match (error code UNROUTABLE); dry run, nothing changed\n", r.out());
        assertEquals(6, DB.count("SELECT count(*) FROM message_outbox WHERE status = 'PARKED'"));
        assertEquals(0, DB.count("SELECT count(*) FROM ops_audit"));
    }

    @Test
    void retryBulkRetriesEverythingInChunksWithAProgressBar() {
        for (int i = 0; i < 5; i++) {
            row("PARKED", "UNROUTABLE", "order.created", "b" + i, 1L);
        }
        row("RETRYABLE_FAILED", "UNROUTABLE", "order.created", "rf", 1L);
        UUID keep = row("PARKED", "PAYLOAD_INVALID", "order.created", "keep", 1L);
        Result r = ok(op(
                "retry-bulk",
                "--error-code",
                "UNROUTABLE",
                "--status",
                "PARKED",
                "--chunk",
                "2",
                "--reason",
                "binding restored"));
        assertEquals("retried 5 of 5 matching message(s) in 3 chunk(s)\n", r.out());
        assertTrue(r.err().contains("] 0/5\n"), r.err());
        assertTrue(r.err().contains("[############------------------] 2/5\n"), r.err());
        assertTrue(r.err().contains("[##############################] 5/5\n"), r.err());
        assertEquals(
                0,
                DB.count("SELECT count(*) FROM message_outbox WHERE status = 'PARKED'"
                        + " AND last_error_code = 'UNROUTABLE'"));
        assertEquals(5, DB.count("SELECT count(*) FROM message_outbox WHERE status = 'PENDING'"));
        assertEquals("PARKED", status(keep));
        assertEquals(1, DB.count("SELECT count(*) FROM message_outbox WHERE status = 'RETRYABLE_FAILED'"));
        assertEquals(
                3,
                DB.count("SELECT count(*) FROM ops_audit WHERE action = 'BULK_RETRY'"
                        + " AND reason = 'binding restored'"));

        Result nothing = ok(op("retry-bulk", "--error-code", "UNROUTABLE", "--status", "PARKED"));
        assertEquals("nothing matches (status PARKED, error code UNROUTABLE); nothing retried\n", nothing.out());
    }

    @Test
    void cancelNeedsAReasonFromTheServer() {
        UUID id = row("PENDING", null, "order.created", "c1", 1L);
        Result noReason = op("cancel", id.toString());
        assertEquals(1, noReason.code());
        assertTrue(noReason.err().startsWith("400 validation_failed: "), noReason.err());
        assertTrue(noReason.err().contains("\n  reason: is required\n"), noReason.err());
        assertEquals("PENDING", status(id));

        ok(op("cancel", id.toString(), "--reason", "sent by hand"));
        assertEquals("CANCELLED", status(id));
    }

    @Test
    void aNoteIsLeftWithoutChangingTheMessage() {
        UUID id = row("PARKED", "UNROUTABLE", "order.created", "note", 1L);
        Result noText = op("note", id.toString());
        assertEquals(1, noText.code());
        assertTrue(noText.err().startsWith("400 validation_failed: "), noText.err());
        Result done = ok(op("note", id.toString(), "--reason", "billing asked to hold it"));
        assertTrue(done.out().startsWith("NOTE: 0 message(s)"), done.out());
        assertEquals("PARKED", status(id));
        Result audit = ok(op("audit", "--message-id", id.toString()));
        assertTrue(audit.out().contains("billing asked to hold it"), audit.out());
    }

    @Test
    void replayAndReleaseRepairWhatTheyMay() {
        UUID published = row("PUBLISHED", null, "order.created", "agg", 1L);
        UUID published2 = row("PUBLISHED", null, "payment.captured", "agg", 2L);
        ok(op("replay", published.toString(), "--reason", "consumer lost it"));
        assertEquals("PENDING", status(published));
        DB.update("UPDATE message_outbox SET status = 'PUBLISHED', published_at = now() WHERE id = ?", published);
        Result aggregate = ok(op("replay", "--aggregate-type", "order", "--aggregate-id", "agg"));
        assertTrue(aggregate.out().startsWith("REPLAY_AGGREGATE: 2 message(s)\n"), aggregate.out());
        assertEquals("PENDING", status(published2));

        UUID leased = row("IN_PROGRESS", null, "order.created", "l", 1L);
        Result reconcile = ok(op("reconcile"));
        assertTrue(reconcile.out().startsWith("NOT OK"), reconcile.out());
        assertTrue(hasLine(reconcile.out(), leased + "\\s+order\\.created\\s+relay-x\\s+\\S+\\s+1"), reconcile.out());
        ok(op("release", leased.toString(), "--reason", "relay-x is gone"));
        assertEquals("RETRYABLE_FAILED", status(leased));
    }

    @Test
    void aWrongTokenIsA401AndNoTokenIsEverPrinted() {
        row("PARKED", "UNROUTABLE", "order.created", "t1", 1L);
        String wrong = OPERATOR + "-wrong";
        Result r = cli(wrong, "list");
        assertEquals(1, r.code());
        assertTrue(r.err().startsWith("401 unauthorized: "), r.err());
        assertFalse(r.out().contains(wrong) || r.err().contains(wrong), r.toString());
        assertEquals(1, cli(null, "stats").code());

        UUID id = row("PARKED", "UNROUTABLE", "order.created", "t2", 1L);
        Result readOnly = cli(READER, "retry", id.toString());
        assertEquals(1, readOnly.code());
        assertTrue(readOnly.err().startsWith("403 forbidden: "), readOnly.err());
        assertEquals("PARKED", status(id));
    }

    @Test
    void anUnreachableUrlIsExit3() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        StringWriter err = new StringWriter();
        int code = new CommandLine(new Outboxctl(Map.of()))
                .setOut(new PrintWriter(new StringWriter()))
                .setErr(new PrintWriter(err))
                .execute("--url", "http://127.0.0.1:" + port, "--token", OPERATOR, "stats");
        assertEquals(3, code);
        assertTrue(
                err.toString().startsWith("cannot reach the outbox service at http://127.0.0.1:" + port + ": "),
                err.toString());
        assertEquals(1, err.toString().lines().count(), "one line");
        assertFalse(err.toString().contains(OPERATOR));
    }

    /** A service that runs none of the outbox's code registers its files through the operator API. */
    @Test
    void registerSendsAServicesContractAndQueueFilesToTheRegistry(@TempDir Path dir) throws Exception {
        Path contract = dir.resolve("contracts/stock.counted/v1.schema.json");
        Files.createDirectories(contract.getParent());
        String schema = """
                {"$schema": "http://json-schema.org/draft-07/schema#", "$id": "urn:outbox:contract:stock.counted:v1",
                 "x-outbox": {"exchange": "stock.events", "aggregateType": "item", "aggregateIdProperty": "itemId",
                              "ordered": true},
                 "type": "object", "required": ["itemId"],
                 "properties": {"itemId": {"type": "string"}, "count": {"type": "integer"}}}""";
        Files.writeString(contract, schema);
        Path queue = Files.createDirectories(dir.resolve("topology")).resolve("stock.counts.queue.json");
        Files.writeString(queue, """
                {"queue": "stock.counts", "consumer": "stock-report",
                 "bindings": [{"exchange": "stock.events", "routingKeys": "contracts"}]}""");

        Result r = ok(op("register", dir.toString(), "--reason", "stock 4.2"));
        assertEquals("contracts: 1 added, 0 unchanged\nqueues:    1 added, 0 unchanged, 0 replaced\n", r.out());
        assertEquals(
                List.of(Map.of("message_type", "stock.counted", "registered_by", "alice (operator API)")),
                DB.rows("SELECT message_type, registered_by FROM outbox_message_contracts"));
        assertEquals(
                List.of(Map.of("queue_name", "stock.counts", "keys", "contracts")),
                DB.rows("SELECT queue_name, declaration->'bindings'->0->>'routingKeys' AS keys"
                        + " FROM outbox_queue_declarations"));
        assertEquals(
                List.of(Map.of("actor", "alice", "action", "REGISTER", "reason", "stock 4.2")),
                DB.rows("SELECT actor, action, reason FROM ops_audit"));
        assertEquals(
                "contracts: 0 added, 1 unchanged\nqueues:    0 added, 1 unchanged, 0 replaced\n",
                ok(op("register", contract.toString(), queue.toString())).out());

        // the same type and version with another schema: refused, its file named, nothing written
        Files.writeString(contract, schema.replace("\"integer\"", "\"number\""));
        Result changed = op("register", dir.toString());
        assertEquals(Outboxctl.SERVER_ERROR, changed.code(), changed.toString());
        assertTrue(
                changed.err().startsWith("409 contract_conflict: stock.counted v1 is registered already"),
                changed.err());
        assertTrue(changed.err().contains("\n  contracts[0]: from " + contract + "\n"), changed.err());
        assertEquals(2, DB.count("SELECT count(*) FROM ops_audit"));

        Result readOnly = cli(READER, "register", queue.toString());
        assertEquals(Outboxctl.SERVER_ERROR, readOnly.code());
        assertTrue(readOnly.err().startsWith("403 forbidden: "), readOnly.err());

        Path neither = Files.writeString(dir.resolve("notes.json"), "{}");
        Result usage = op("register", neither.toString());
        assertEquals(Outboxctl.USAGE, usage.code());
        assertTrue(usage.err().contains(neither + ": neither a contract file"), usage.err());
    }

    @Test
    void jsonOutputIsTheServersJson() throws Exception {
        UUID id = row("PARKED", "UNROUTABLE", "order.created", "j1", 1L);
        row("PARKED", "UNROUTABLE", "order.created", "j2", 1L);
        JsonNode list =
                OpsClient.JSON.readTree(ok(op("list", "--json", "--limit", "1")).out());
        assertEquals(1, list.get("items").size());
        assertTrue(list.hasNonNull("next"));
        JsonNode all = OpsClient.JSON.readTree(
                ok(op("--json", "list", "--all", "--limit", "1")).out());
        assertEquals(2, all.get("items").size());
        JsonNode show =
                OpsClient.JSON.readTree(ok(op("show", id.toString(), "--json")).out());
        assertEquals("UNROUTABLE", show.get("lastErrorCode").asText());
        assertEquals("42.50", show.get("payload").get("total").asText());
        JsonNode stats = OpsClient.JSON.readTree(ok(op("stats", "--json")).out());
        assertEquals(2, stats.get("counts").get("PARKED").asLong());
        JsonNode dry = OpsClient.JSON.readTree(ok(op("retry-bulk", "--error-code", "UNROUTABLE", "--dry-run", "--json"))
                .out());
        assertEquals(2, dry.get("matched").asLong());
        JsonNode bulk = OpsClient.JSON.readTree(
                ok(op("retry-bulk", "--error-code", "UNROUTABLE", "--json")).out());
        assertEquals(2, bulk.get("retried").asLong());
        assertEquals(2, bulk.get("ids").size());
        JsonNode audit = OpsClient.JSON.readTree(ok(op("audit", "--json")).out());
        assertEquals("BULK_RETRY", audit.get("items").get(0).get("action").asText());
        JsonNode reconcile =
                OpsClient.JSON.readTree(ok(op("reconcile", "--json")).out());
        assertTrue(reconcile.has("ok"));
    }
}
