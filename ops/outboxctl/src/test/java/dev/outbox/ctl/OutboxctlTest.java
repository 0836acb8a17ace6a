package dev.outbox.ctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The CLI against a scripted HTTP server: what it sends (headers, query, bodies, chunking) and how
 * it turns answers and failures into output and exit codes. The real API is in {@code OutboxctlIT}.
 */
class OutboxctlTest {
    private static final String TOKEN = "unit-secret-7d1f";

    record Seen(String method, String uri, String protocol, String authorization, String operator, String body) {}

    record Answer(int status, String contentType, String body) {
        static Answer json(String body) {
            return new Answer(200, "application/json", body.replace('\'', '"'));
        }
    }

    record Result(int code, String out, String err) {}

    @TempDir
    Path dir;

    private HttpServer server;
    private final List<Seen> seen = Collections.synchronizedList(new ArrayList<>());
    private volatile Function<Seen, Answer> script = s -> Answer.json("{}");
    private String url;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::handle);
        server.start();
        url = "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private void handle(HttpExchange x) throws IOException {
        Seen s = new Seen(
                x.getRequestMethod(),
                x.getRequestURI().toString(),
                x.getProtocol(),
                x.getRequestHeaders().getFirst("Authorization"),
                x.getRequestHeaders().getFirst("X-Operator"),
                new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
        seen.add(s);
        Answer a = script.apply(s);
        byte[] body = a.body().getBytes(StandardCharsets.UTF_8);
        x.getResponseHeaders().set("Content-Type", a.contentType());
        x.sendResponseHeaders(a.status(), body.length == 0 ? -1 : body.length);
        if (body.length > 0) {
            x.getResponseBody().write(body);
        }
        x.close();
    }

    private static Result run(Map<String, String> env, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = new CommandLine(new Outboxctl(env))
                .setOut(new PrintWriter(out))
                .setErr(new PrintWriter(err))
                .execute(args);
        Result r = new Result(code, out.toString(), err.toString());
        assertFalse(r.out().contains(TOKEN) || r.err().contains(TOKEN), "the token was printed: " + r);
        return r;
    }

    private Result run(String... args) {
        return run(Map.of(), args);
    }

    /** Row ids as the API writes them (UUIDs), told apart by their last digit. */
    private static String id(int n) {
        return "00000000-0000-0000-0000-00000000000" + n;
    }

    private static final String STATS = "{'counts':{'PENDING':1,'IN_PROGRESS':0,'RETRYABLE_FAILED':0,'PARKED':2},"
            + "'publishedLastHour':5,'oldestPendingAgeSeconds':1.5,'parkedByErrorCode':{'UNROUTABLE':2},"
            + "'blockedAggregates':0}";

    @Test
    void sendsTheTokenAndOperatorOverHttp11WhereverTheGlobalOptionsAre() {
        script = s -> Answer.json(STATS);
        Result before = run("--url", url, "--token", TOKEN, "--operator", "alice", "stats");
        Result after = run("stats", "--url", url + "/", "--token", TOKEN, "--operator", "alice");
        assertEquals(0, before.code(), before.err());
        assertEquals(0, after.code(), after.err());
        assertEquals(before.out(), after.out());
        assertTrue(before.out().contains("PARKED                2\n"), before.out());
        assertEquals(2, seen.size());
        for (Seen s : seen) {
            assertEquals("GET /ops/outbox/stats", s.method() + " " + s.uri());
            assertEquals("HTTP/1.1", s.protocol());
            assertEquals("Bearer " + TOKEN, s.authorization());
            assertEquals("alice", s.operator());
        }
    }

    @Test
    void defaultsComeFromTheEnvironment() {
        script = s -> Answer.json(STATS);
        Result r = run(Map.of("OUTBOX_URL", url, "OUTBOX_OPS_TOKEN", TOKEN, "USER", "carol"), "stats", "--json");
        assertEquals(0, r.code(), r.err());
        assertEquals("Bearer " + TOKEN, seen.get(0).authorization());
        assertEquals("carol", seen.get(0).operator());
        assertTrue(r.out().contains("\"publishedLastHour\" : 5"), r.out());

        seen.clear();
        run(Map.of("OUTBOX_URL", url, "USER", "not allowed!"), "stats");
        assertNull(seen.get(0).authorization(), "no token, no header");
        assertNull(seen.get(0).operator(), "a USER the service would refuse is not sent");
    }

    @Test
    void listSendsEveryFilterEncodedAndAllFollowsTheCursors() {
        script = s -> s.uri().contains("after=c2")
                ? Answer.json("{'items':[{'id':'" + id(3) + "','status':'PARKED'}],'next':null}")
                : s.uri().contains("after=c1")
                        ? Answer.json("{'items':[{'id':'" + id(2) + "','status':'PARKED'}],'next':'c2'}")
                        : Answer.json("{'items':[{'id':'" + id(1) + "','status':'PARKED'}],'next':'c1'}");
        Result r = run(
                "--url",
                url,
                "list",
                "--status",
                "parked",
                "--type",
                "order.created",
                "--aggregate-type",
                "order",
                "--aggregate-id",
                "a 1&x=y",
                "--correlation-id",
                "c-1",
                "--tenant",
                "t",
                "--error-code",
                "unroutable",
                "--from",
                "2026-11-30",
                "--to",
                "2026-12-01T00:00:00Z",
                "--limit",
                "1");
        assertEquals(0, r.code(), r.err());
        assertEquals(
                "/ops/outbox?status=PARKED&messageType=order.created&aggregateType=order&aggregateId=a+1%26x%3Dy"
                        + "&correlationId=c-1&tenantId=t&errorCode=UNROUTABLE&createdFrom=2026-11-30T00%3A00%3A00Z"
                        + "&createdTo=2026-12-01T00%3A00%3A00Z&limit=1",
                seen.get(0).uri());
        assertTrue(r.out().contains("1 message(s); more match: add --after c1 (or --all)"), r.out());

        seen.clear();
        Result all = run("--url", url, "list", "--all");
        assertEquals(3, seen.size());
        assertEquals("/ops/outbox?limit=500", seen.get(0).uri());
        assertEquals("/ops/outbox?limit=500&after=c2", seen.get(2).uri());
        assertTrue(
                all.out().contains(id(1))
                        && all.out().contains(id(2))
                        && all.out().contains(id(3)),
                all.out());
        assertTrue(all.out().contains("3 message(s)\n"), all.out());
    }

    @Test
    void aCursorThatRepeatsDoesNotLoopForever() {
        script = s -> Answer.json("{'items':[{'id':'" + id(1) + "','status':'PENDING'}],'next':'same'}");
        Result r = run("--url", url, "list", "--all");
        assertEquals(0, r.code());
        assertEquals(2, seen.size());
    }

    @Test
    void aProblemAnswerIsOneLinePlusItsFieldErrorsAndExit1() {
        script = s -> new Answer(
                400,
                "application/problem+json",
                "{\"type\":\"/problems/validation_failed\","
                        + "\"title\":\"Invalid request\",\"status\":400,\"detail\":\"the request is invalid\","
                        + "\"code\":\"validation_failed\",\"errors\":[{\"field\":\"reason\",\"message\":\"is required\"}]}");
        Result r = run("--url", url, "--token", TOKEN, "cancel", "some-id");
        assertEquals(1, r.code());
        assertEquals("400 validation_failed: the request is invalid\n  reason: is required\n", r.err());
        assertEquals("", r.out());
        assertEquals(
                "POST /ops/outbox/some-id/cancel {}",
                seen.get(0).method() + " " + seen.get(0).uri() + " "
                        + seen.get(0).body());
    }

    @Test
    void anAnswerThatIsNotAProblemStillSaysWhatCameBack() {
        script = s -> new Answer(502, "text/html", "<html>Bad gateway</html>\n<p>more</p>");
        Result r = run("--url", url, "show", "x");
        assertEquals(1, r.code());
        assertEquals("502 http_502: not an outbox problem answer: <html>Bad gateway</html>\n", r.err());
    }

    @Test
    void retryBulkCountsThenRetriesInChunksNeverMoreThanCounted() throws Exception {
        List<Integer> limits = Collections.synchronizedList(new ArrayList<>());
        int[] left = {5};
        script = s -> {
            JsonNode b = read(s.body());
            if (b.path("dryRun").asBoolean()) {
                return Answer.json("{'dryRun':true,'matched':" + left[0] + ",'retried':0,'remaining':" + left[0] + "}");
            }
            int limit = b.path("limit").asInt();
            limits.add(limit);
            int n = Math.min(limit, left[0]);
            left[0] -= n;
            // one more row failed again meanwhile: it matches, but was not in the count
            return Answer.json("{'dryRun':false,'matched':" + (n + left[0] + 1) + ",'retried':" + n + ",'ids':[],"
                    + "'remaining':" + (left[0] + 1) + "}");
        };
        Result r = run(
                "--url",
                url,
                "--token",
                TOKEN,
                "retry-bulk",
                "--error-code",
                "unroutable",
                "--chunk",
                "2",
                "--reason",
                "bound the queue");
        assertEquals(0, r.code(), r.err());
        assertEquals(List.of(2, 2, 1), limits);
        JsonNode first = read(seen.get(1).body());
        assertEquals("UNROUTABLE", first.get("errorCode").asText());
        assertEquals("bound the queue", first.get("reason").asText());
        assertFalse(first.get("dryRun").asBoolean());
        assertEquals(
                "[------------------------------] 0/5\n[############------------------] 2/5\n"
                        + "[########################------] 4/5\n[##############################] 5/5\n",
                r.err());
        assertTrue(r.out().startsWith("retried 5 of 5 matching message(s) in 3 chunk(s)\n"), r.out());
        assertTrue(r.out().contains("1 still match"), r.out());
    }

    @Test
    void retryBulkStopsWhenAChunkRetriesNothing() {
        script = s -> read(s.body()).path("dryRun").asBoolean()
                ? Answer.json("{'dryRun':true,'matched':4,'retried':0,'remaining':4}")
                : Answer.json("{'dryRun':false,'matched':0,'retried':0,'ids':[],'remaining':0}");
        Result r = run("--url", url, "retry-bulk", "--type", "order.created");
        assertEquals(0, r.code(), r.err());
        assertEquals(2, seen.size(), "one dry run, one chunk");
        assertTrue(r.out().startsWith("retried 0 of 4"), r.out());
    }

    @Test
    void retryBulkDryRunOnlyCounts() {
        script = s -> Answer.json("{'dryRun':true,'matched':7,'retried':0,'remaining':7}");
        Result r = run("--url", url, "retry-bulk", "--status", "PARKED", "--from", "2026-11-30", "--dry-run");
        assertEquals(0, r.code(), r.err());
        assertEquals(1, seen.size());
        assertEquals(
                "7 message(s) match (status PARKED, created from 2026-11-30T00:00:00Z); dry run, nothing changed\n",
                r.out());
        assertEquals("", r.err(), "no progress bar for a count");
    }

    @Test
    void usageErrorsExit2WithoutCallingTheService() {
        String[][] bad = {
            {"--url", url},
            {"--url", url, "frobnicate"},
            {"--url", url, "show"},
            {"--url", url, "list", "--from", "last tuesday"},
            {"--url", url, "retry-bulk", "--dry-run"},
            {"--url", url, "retry-bulk", "--type", "t", "--chunk", "0"},
            {"--url", url, "replay"},
            {"--url", url, "replay", "id", "--aggregate-type", "order", "--aggregate-id", "o"},
            {"--url", url, "replay", "--aggregate-type", "order"},
            {"--url", "localhost:8080", "stats"},
            {"--url", "ftp://x", "stats"},
        };
        for (String[] args : bad) {
            Result r = run(args);
            assertEquals(2, r.code(), String.join(" ", args) + " -> " + r);
            assertFalse(r.err().isBlank(), String.join(" ", args));
        }
        assertTrue(seen.isEmpty(), "nothing was sent: " + seen);
    }

    @Test
    void anUnreachableServiceIsExit3WithOneLineNamingTheUrl() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Result r = run("--url", "http://127.0.0.1:" + port, "--token", TOKEN, "stats");
        assertEquals(3, r.code());
        assertEquals(
                "cannot reach the outbox service at http://127.0.0.1:" + port + ": connection refused (check"
                        + " --url / OUTBOX_URL and that the service is running)\n",
                r.err());
    }

    @Test
    void replayTakesAnIdOrAWholeAggregate() {
        script = s -> Answer.json("{'action':'REPLAY_AGGREGATE','affected':2,'ids':['" + id(1) + "','" + id(2) + "']}");
        Result r = run("--url", url, "replay", "--aggregate-type", "order", "--aggregate-id", "o-1", "--reason", "why");
        assertEquals(0, r.code(), r.err());
        assertEquals("/ops/outbox/replay-aggregate", seen.get(0).uri());
        assertEquals(
                "{\"aggregateType\":\"order\",\"aggregateId\":\"o-1\",\"reason\":\"why\"}",
                seen.get(0).body());
        assertEquals("REPLAY_AGGREGATE: 2 message(s)\n  " + id(1) + "\n  " + id(2) + "\n", r.out());
        run("--url", url, "replay", "m/../x");
        assertEquals("/ops/outbox/m%2F..%2Fx/replay", seen.get(1).uri(), "an id cannot leave its path segment");
    }

    private static final String REGISTERED = "{'contractsAdded':1,'contractsUnchanged':1,'queuesAdded':1,"
            + "'queuesUnchanged':0,'queuesReplaced':0,'audit':{'id':7,'at':'2026-11-30T09:00:00Z','actor':'alice',"
            + "'role':'operator','action':'REGISTER','messageIds':[],'filter':null,'reason':null,'affected':2}}";

    /** A file under the temp dir, its folders made. */
    private Path write(String path, String content) throws IOException {
        Path file = dir.resolve(path);
        Files.createDirectories(file.getParent());
        Files.writeString(file, content);
        return file;
    }

    /** Files laid out as a service's resources, and a folder argument beside a file argument. */
    @Test
    void registerSendsEveryContractAndQueueFileItIsGivenInOneRequest() throws Exception {
        write("service/contracts/stock.counted/v1.schema.json", "{\"$id\": \"urn:outbox:contract:stock.counted:v1\"}");
        write("service/contracts/stock.counted/v2.schema.json", "{\"$id\": \"urn:outbox:contract:stock.counted:v2\"}");
        write("service/db/V1__stock.sql", "CREATE TABLE stock (id TEXT);");
        Path queue = write("topology/stock.counts.queue.json", "{\"queue\": \"stock.counts\", \"consumer\": \"s\"}");
        script = s -> Answer.json(REGISTERED);

        String service = dir.resolve("service").toString();
        Result r = run("--url", url, "--token", TOKEN, "register", service, queue.toString(), "--reason", "stock 4.2");

        assertEquals(0, r.code(), r.err());
        assertEquals(1, seen.size(), "one request");
        assertEquals(
                "POST /ops/registry", seen.get(0).method() + " " + seen.get(0).uri());
        JsonNode body = read(seen.get(0).body());
        assertEquals(2, body.get("contracts").size(), "the SQL file is neither kind, and skipped in a folder");
        assertEquals(
                "stock.counted", body.get("contracts").get(0).get("messageType").asText());
        assertEquals(1, body.get("contracts").get(0).get("version").asInt());
        assertEquals(2, body.get("contracts").get(1).get("version").asInt());
        assertEquals(
                read("{\"$id\": \"urn:outbox:contract:stock.counted:v1\"}"),
                body.get("contracts").get(0).get("document"),
                "the file's document whole");
        assertEquals(
                read("{\"queue\": \"stock.counts\", \"consumer\": \"s\"}"),
                body.get("queues").get(0));
        assertEquals("stock 4.2", body.get("reason").asText());
        assertEquals("contracts: 1 added, 1 unchanged\nqueues:    1 added, 0 unchanged, 0 replaced\n", r.out());

        seen.clear();
        Result json = run("--url", url, "register", queue.toString(), "--json");
        assertEquals(0, json.code(), json.err());
        assertEquals(1, read(json.out()).get("queuesAdded").asInt(), json.out());
        assertEquals(0, read(seen.get(0).body()).get("contracts").size(), "[] when there are none");
    }

    @Test
    void registerRefusesWhatIsNotAContractOrQueueFileWithoutCallingTheService() throws Exception {
        Path neither = write("notes/readme.json", "{}");
        Path broken = write("topology/stock.counts.queue.json", "{\"queue\": ");
        Path misnamed = write("topology/stock.queue.json", "{\"queue\": \"stock.counts\"}");
        Path upperCase = write("service/contracts/Stock.Counted/v1.schema.json", "{}");
        Path empty = Files.createDirectories(dir.resolve("empty"));
        String[][] bad = {
            {neither.toString()},
            {broken.toString()},
            {misnamed.toString()},
            {dir.resolve("service").toString()},
            {empty.toString()},
            {dir.resolve("missing.queue.json").toString()},
        };
        for (String[] files : bad) {
            List<String> args = new ArrayList<>(List.of("--url", url, "register"));
            args.addAll(List.of(files));
            Result r = run(args.toArray(String[]::new));
            assertEquals(2, r.code(), String.join(" ", files) + " -> " + r);
            assertTrue(r.err().contains(files[0]), r.err());
        }
        assertTrue(run("--url", url, "register", neither.toString()).err().contains("neither a contract file"));
        assertTrue(run("--url", url, "register", broken.toString()).err().contains("not one JSON document"));
        assertTrue(run("--url", url, "register", misnamed.toString())
                .err()
                .contains("declares queue stock.counts; the file must be named stock.counts.queue.json"));
        assertTrue(run("--url", url, "register", dir.resolve("service").toString())
                .err()
                .contains(upperCase + ": a contract file must be named"));
        assertEquals(2, run("--url", url, "register").code(), "no file at all");
        assertTrue(seen.isEmpty(), "nothing was sent: " + seen);
    }

    /** The server names entries (contracts[1]); the CLI says which file each one came from. */
    @Test
    void aRefusedRegistrationNamesTheFileBehindEachEntry() throws Exception {
        Path first = write("contracts/stock.counted/v1.schema.json", "{}");
        Path second = write("contracts/stock.moved/v1.schema.json", "{}");
        script = s -> new Answer(
                400,
                "application/problem+json",
                "{\"type\":\"/problems/contract_invalid\",\"title\":\"Invalid contract\",\"status\":400,"
                        + "\"detail\":\"contracts[1] of the registration by alice: a message payload must be"
                        + " declared \\\"type\\\": \\\"object\\\"\",\"code\":\"contract_invalid\"}");

        Result r = run("--url", url, "register", dir.resolve("contracts").toString());

        assertEquals(1, r.code());
        assertEquals(
                "400 contract_invalid: contracts[1] of the registration by alice: a message payload must be declared"
                        + " \"type\": \"object\"\n  contracts[1]: from " + second + "\n",
                r.err());
        assertFalse(r.err().contains(first.toString()), r.err());

        script = s -> new Answer(
                409,
                "application/problem+json",
                "{\"type\":\"/problems/contract_conflict\",\"title\":\"Conflict\",\"status\":409,"
                        + "\"detail\":\"stock.counted v1 is registered already, by stock, with a different schema\","
                        + "\"code\":\"contract_conflict\"}");
        Result conflict = run("--url", url, "register", dir.resolve("contracts").toString());
        assertEquals(1, conflict.code());
        assertTrue(conflict.err().endsWith("\n  contracts[0]: from " + first + "\n"), conflict.err());
    }

    private static JsonNode read(String s) {
        try {
            return OpsClient.JSON.readTree(s);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
