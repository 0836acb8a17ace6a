package dev.outbox.chaos;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.messaging.Topology;
import dev.outbox.sample.ledger.LedgerConsumer;
import dev.outbox.testkit.JavaProcess;
import dev.outbox.testkit.RecordingQueue;
import dev.outbox.testkit.TestBroker;
import dev.outbox.testkit.TestDatabase;
import dev.outbox.testkit.junit.TestResources;
import dev.outbox.testkit.net.NetworkSandbox;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Real partitions: the API, a relay and the ledger consumer run as processes inside a network
 * namespace, reaching PostgreSQL and RabbitMQ over veth links that the test takes down, so that
 * packets are dropped without a reset, as behind a dead switch. A dependency that hangs is a
 * different fault from one that dies: nothing here ever answers "connection refused".
 *
 * <p>Checked per partition: every request the API gets is answered within its bound (a socket
 * timeout plus a connect timeout, never "until the kernel gives up"); readiness turns DOWN naming
 * the dependency, within that bound, and only for the processes that need it (the API's does
 * not depend on the broker); after the link heals, writes, publishing and consuming resume within
 * {@link #RECOVERY_TARGET}; and nothing is lost or booked twice. The processes run with short
 * timeouts so the test takes a minute; {@code -Doutbox.partition.defaults=true} runs them with
 * the shipped defaults instead (the README quotes both). The measurements are written to {@code
 * target/partitions.md}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PartitionIT {
    static final Duration RECOVERY_TARGET = Duration.ofSeconds(30);
    private static final boolean DEFAULTS = Boolean.getBoolean("outbox.partition.defaults");
    /** The database settings of a fast run; with the defaults: 15 s, 20 s and 5 s. */
    private static final Duration SOCKET_TIMEOUT = DEFAULTS ? Duration.ofSeconds(20) : Duration.ofSeconds(4);

    private static final Duration CONNECT_TIMEOUT = DEFAULTS ? Duration.ofSeconds(5) : Duration.ofSeconds(2);
    private static final Duration HEARTBEAT = DEFAULTS ? Duration.ofSeconds(10) : Duration.ofSeconds(2);
    /** How long a partition lasts: past every timeout, so that each one has to fire. */
    private static final Duration OUTAGE = DEFAULTS ? Duration.ofSeconds(45) : Duration.ofSeconds(12);
    /** Within this an answer or a readiness change must come: the timeouts plus a margin for 2 busy cores. */
    private static final Duration ANSWER_BOUND =
            SOCKET_TIMEOUT.plus(CONNECT_TIMEOUT).plusSeconds(4);

    private static final int API_PORT = 8080;
    private static final int RELAY_PORT = 9101;
    private static final int LEDGER_PORT = 9102;
    private static final Path REPORT = Path.of("target", "partitions.md");
    private static final Pattern CREATED_ID = Pattern.compile("\"id\"\\s*:\\s*\"([0-9a-f-]{36})\"");

    private final TestDatabase db = TestDatabase.get();
    private final TestBroker broker = TestBroker.get();
    private final TestResources closing = new TestResources();
    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(3))
            .build();
    private NetworkSandbox sandbox;
    private NetworkSandbox.Link dbLink;
    private NetworkSandbox.Link brokerLink;
    private NetworkSandbox.Link clientLink;
    private JavaProcess api;
    private JavaProcess relay;
    private JavaProcess ledger;

    /** One witness on {@code #} for the whole class: every row of both partitions must reach it. */
    private RecordingQueue wire;
    /** Every message id the witness has seen, over both partitions (duplicates kept). */
    private final List<String> delivered = new ArrayList<>();

    /** The processes start once: both partitions hit the same running system, one after the other. */
    @BeforeAll
    void start() throws Exception {
        // skipped only where namespaces cannot be made (not root, no iproute2): nothing else here
        // can drop packets without a reset; CI requires them. The dead-peer faults (resets, refused
        // connections) stay covered everywhere by the TcpProxy tests (RelayFailureIT, PublishLaneIT,
        // DatabaseOutageDeliveryCountIT)
        NetnsRequirement.requireOrSkip();
        db.reset();
        broker.withChannel(Topology::declare);
        broker.purgeIfExists(LedgerConsumer.QUEUE);
        sandbox = later(NetworkSandbox.create());
        dbLink = sandbox.forward(db.host(), db.port());
        brokerLink = sandbox.forward(broker.host(), broker.port());
        clientLink = sandbox.link();

        Map<String, String> env = new LinkedHashMap<>();
        env.putAll(db.env());
        env.put("OUTBOX_DB_URL", db.urlVia(dbLink.hostAddress(), dbLink.port()));
        env.put("OUTBOX_AMQP_URI", broker.uriVia(brokerLink.hostAddress(), brokerLink.port()));
        env.put("OUTBOX_RETENTION_ENABLED", "false");
        env.put("OUTBOX_RELAY_POLL_INTERVAL", "50ms");
        if (!DEFAULTS) {
            env.put("OUTBOX_DB_STATEMENT_TIMEOUT", "3s");
            env.put("OUTBOX_DB_SOCKET_TIMEOUT", SOCKET_TIMEOUT.toSeconds() + "s");
            env.put("OUTBOX_DB_CONNECT_TIMEOUT", CONNECT_TIMEOUT.toSeconds() + "s");
            env.put("OUTBOX_AMQP_HEARTBEAT", HEARTBEAT.toSeconds() + "s");
            env.put("OUTBOX_AMQP_CONNECT_TIMEOUT", CONNECT_TIMEOUT.toSeconds() + "s");
            env.put("OUTBOX_RELAY_RECONNECT_MAX", "2s");
            env.put("OUTBOX_RELAY_LIVENESS_TIMEOUT", "3s");
        }
        env.put("OUTBOX_HTTP_HOST", "0.0.0.0");
        env.put("OUTBOX_HTTP_PORT", Integer.toString(API_PORT));
        env.put("OUTBOX_RELAY_HTTP_HOST", "0.0.0.0");
        env.put("OUTBOX_RELAY_HTTP_PORT", Integer.toString(RELAY_PORT));
        env.put("OUTBOX_LEDGER_HTTP_HOST", "0.0.0.0");
        env.put("OUTBOX_LEDGER_HTTP_PORT", Integer.toString(LEDGER_PORT));
        env.put("OUTBOX_RELAY_ID", "partitioned-relay");

        api = later(JavaProcess.startIn(sandbox, "partition-api", "dev.outbox.api.ApiMain", env));
        relay = later(JavaProcess.startIn(sandbox, "partition-relay", "dev.outbox.relay.RelayMain", env));
        ledger = later(JavaProcess.startIn(
                sandbox, "partition-ledger", "dev.outbox.consumer.runtime.ConsumerMain", env, LedgerConsumer.NAME));
        Pattern running = Pattern.compile("running \\(pid \\d+\\)");
        for (JavaProcess p : List.of(api, relay, ledger)) {
            p.awaitOutput(running, Duration.ofSeconds(90));
        }
        wire = later(broker.bindQueue(Topology.ORDERS_EXCHANGE, "#"));
    }

    /** A test that failed mid-partition must not leave the link down under the next one. */
    @AfterEach
    void healWhatIsStillCut() throws IOException {
        for (NetworkSandbox.Link link : List.of(dbLink, brokerLink)) {
            if (link != null && link.partitioned()) {
                link.heal();
            }
        }
    }

    @AfterAll
    void stop() throws Exception {
        // every one is closed whatever the others do; the first failure is thrown
        closing.closeAll();
    }

    private <T extends AutoCloseable> T later(T c) {
        closing.add(c);
        return c;
    }

    @Test
    @Order(1)
    void aDatabaseBehindAPartitionIsGivenUpOnWithinTheSocketTimeoutAndEverythingResumesAfterItHeals() throws Exception {
        try (Clients clients = new Clients()) {
            clients.awaitAnswers(20, Duration.ofSeconds(30));

            long cut = System.nanoTime();
            dbLink.partition();
            Duration apiReadyDown = awaitTrue(() -> status(API_PORT, "/health/ready") == 503, ANSWER_BOUND);
            Duration relayReadyDown = awaitTrue(() -> readiness(RELAY_PORT).contains("database"), ANSWER_BOUND);
            Duration ledgerReadyDown = awaitTrue(() -> readiness(LEDGER_PORT).contains("database"), ANSWER_BOUND);
            awaitTrue(() -> relay.output().contains("cannot claim from the outbox"), ANSWER_BOUND);
            Duration relayGaveUp = Duration.ofNanos(System.nanoTime() - cut);
            holdPartitioned(dbLink, cut);
            dbLink.heal();
            long healed = System.nanoTime();

            Duration writesBack = awaitTrue(() -> clients.created201Since(healed), RECOVERY_TARGET);
            Duration readyBack = awaitTrue(() -> status(API_PORT, "/health/ready") == 200, RECOVERY_TARGET);
            Duration publishingBack = awaitTrue(() -> publishedSince(healed), RECOVERY_TARGET);
            Duration bookingBack = awaitTrue(() -> bookedSince(healed), RECOVERY_TARGET);
            clients.close();

            // every request the outage met, also one that was on the wire when the link went down
            List<Answer> during = clients.between(cut, healed);
            Duration slowest = during.stream()
                    .map(a -> a.waitedSince(cut))
                    .max(Duration::compareTo)
                    .orElse(Duration.ZERO);
            long fiveHundreds = during.stream().filter(a -> a.status() >= 500).count();
            long notProblem = during.stream()
                    .filter(a -> a.status() >= 400 && !a.problemJson())
                    .count();
            String settled = settleAndAudit(wire, clients);
            report(
                    "database",
                    List.of(
                            "API readiness DOWN after " + ms(apiReadyDown) + ", relay's after " + ms(relayReadyDown)
                                    + ", ledger's after " + ms(ledgerReadyDown) + "; the relay's claim had given up "
                                    + ms(relayGaveUp) + " after the cut",
                            during.size() + " requests met the outage, the longest waited " + ms(slowest) + "; "
                                    + fiveHundreds + " answered 5xx (503 problem+json: " + (fiveHundreds - notProblem)
                                    + ")",
                            "after the heal: first 201 in " + ms(writesBack) + ", API ready in " + ms(readyBack)
                                    + ", first row published in " + ms(publishingBack) + ", first booking in "
                                    + ms(bookingBack),
                            settled));
            assertTrue(slowest.compareTo(ANSWER_BOUND) <= 0, "an answer took " + ms(slowest) + " during the outage");
            assertEquals(0, notProblem, "every error answer is problem+json");
            assertTrue(
                    during.stream().allMatch(a -> a.status() == 201 || a.status() == 200 || a.status() == 503),
                    "only 201/200 or 503 during a database outage: " + statuses(during));
        }
    }

    @Test
    @Order(2)
    void aBrokerBehindAPartitionStopsOnlyTheRelayAndTheConsumerAndBothResumeAfterItHeals() throws Exception {
        try (Clients clients = new Clients()) {
            clients.awaitAnswers(20, Duration.ofSeconds(30));

            long cut = System.nanoTime();
            brokerLink.partition();
            Duration relayReadyDown = awaitTrue(() -> readiness(RELAY_PORT).contains("broker"), ANSWER_BOUND);
            Duration ledgerReadyDown = awaitTrue(() -> readiness(LEDGER_PORT).contains("broker"), ANSWER_BOUND);
            List<Integer> apiReadiness = new ArrayList<>();
            // the API's readiness, sampled every 500 ms until the outage has lasted its length
            await().atMost(OUTAGE.plusSeconds(10))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> {
                        apiReadiness.add(status(API_PORT, "/health/ready"));
                        return System.nanoTime() - cut >= OUTAGE.toNanos();
                    });
            brokerLink.heal();
            long healed = System.nanoTime();
            Duration publishingBack = awaitTrue(() -> publishedSince(healed), RECOVERY_TARGET);
            Duration bookingBack = awaitTrue(() -> bookedSince(healed), RECOVERY_TARGET);
            Duration relayReady = awaitTrue(() -> status(RELAY_PORT, "/health/ready") == 200, RECOVERY_TARGET);
            clients.close();

            List<Answer> during = clients.between(cut, healed);
            String settled = settleAndAudit(wire, clients);
            long created = during.stream().filter(a -> a.status() == 201).count();
            report(
                    "broker",
                    List.of(
                            "relay readiness DOWN after " + ms(relayReadyDown) + ", ledger's after "
                                    + ms(ledgerReadyDown) + "; the API's stayed " + new HashSet<>(apiReadiness),
                            during.size() + " requests during the outage, " + created + " answered 201",
                            "after the heal: first row published in " + ms(publishingBack) + ", first booking in "
                                    + ms(bookingBack) + ", relay ready in " + ms(relayReady),
                            settled));
            assertEquals(Set.of(200), new HashSet<>(apiReadiness), "the API never publishes: the broker is not its");
            assertTrue(
                    during.stream().allMatch(a -> a.status() == 201 || a.status() == 200),
                    "writes go on while the broker is away: " + statuses(during));
        }
    }

    // ---------------------------------------------------------------------------------------

    /** What one request got: status, time to answer, and whether an error was problem+json. */
    record Answer(long atNanos, String op, int status, Duration took, boolean problemJson, UUID created) {
        long endNanos() {
            return atNanos + took.toNanos();
        }

        /** How long this request waited after {@code cut}, when it was sent before it or after. */
        Duration waitedSince(long cut) {
            return Duration.ofNanos(endNanos() - Math.max(atNanos, cut));
        }
    }

    /** Two clients placing and capturing orders through the API, one request at a time each. */
    private final class Clients implements AutoCloseable {
        final ConcurrentLinkedQueue<Answer> answers = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<UUID> captured = new ConcurrentLinkedQueue<>();
        private volatile boolean running = true;
        // two clients, each starting its next order 100 ms after the last one was answered
        private final java.util.concurrent.ScheduledExecutorService clients =
                java.util.concurrent.Executors.newScheduledThreadPool(2, r -> {
                    Thread t = new Thread(r, "partition-client");
                    t.setDaemon(true);
                    return t;
                });

        Clients() {
            for (int i = 0; i < 2; i++) {
                clients.scheduleWithFixedDelay(this::oneOrder, 0, 100, java.util.concurrent.TimeUnit.MILLISECONDS);
            }
        }

        private void oneOrder() {
            if (!running) {
                return;
            }
            Answer placed = send(
                    "place",
                    "/orders",
                    "{\"customerId\":\"c-" + UUID.randomUUID()
                            + "\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\"S-1\",\"quantity\":1,\"unitPrice\":\"5.00\"}]}");
            if (placed != null && placed.status() == 201 && placed.created() != null) {
                UUID id = placed.created();
                Answer capture = send("capture", "/orders/" + id + "/capture", "{\"amount\":\"5.00\"}");
                if (capture != null && capture.status() == 200) {
                    captured.add(id);
                }
            }
        }

        private Answer send(String op, String path, String body) {
            long start = System.nanoTime();
            HttpRequest request = HttpRequest.newBuilder(uri(API_PORT, path))
                    .timeout(Duration.ofSeconds(60))
                    .header("Content-Type", "application/json")
                    .header("Idempotency-Key", UUID.randomUUID().toString())
                    .POST(HttpRequest.BodyPublishers.ofString(body))
                    .build();
            try {
                HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
                UUID created = null;
                if (r.statusCode() == 201) {
                    Matcher m = CREATED_ID.matcher(r.body());
                    if (m.find()) {
                        created = UUID.fromString(m.group(1));
                    }
                }
                Answer a = new Answer(
                        start,
                        op,
                        r.statusCode(),
                        Duration.ofNanos(System.nanoTime() - start),
                        r.headers().firstValue("Content-Type").orElse("").startsWith("application/problem+json"),
                        created);
                answers.add(a);
                return a;
            } catch (IOException e) {
                // a timeout or a reset is an answer too: the slowest one counts against the bound
                answers.add(new Answer(start, op, -1, Duration.ofNanos(System.nanoTime() - start), false, null));
                return null;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }

        void awaitAnswers(int n, Duration timeout) {
            awaitTrue(() -> answers.stream().filter(a -> a.status() == 201).count() >= n, timeout);
        }

        /** The requests the outage met: answered after {@code cut}, sent before {@code healed}. */
        List<Answer> between(long cut, long healed) {
            return answers.stream()
                    .filter(a -> a.endNanos() >= cut && a.atNanos() < healed)
                    .toList();
        }

        boolean created201Since(long nanos) {
            return answers.stream().anyMatch(a -> a.atNanos() >= nanos && a.status() == 201);
        }

        @Override
        public void close() {
            running = false;
            clients.shutdown();
            try {
                // a request under way ends within its 60 s timeout
                clients.awaitTermination(70, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Waits for every row to be published and every capture to be booked; the audit line. */
    private String settleAndAudit(RecordingQueue wire, Clients clients) throws Exception {
        long rows = db.count("SELECT count(*) FROM message_outbox");
        awaitTrue(
                () -> db.count("SELECT count(*) FROM message_outbox WHERE status = 'PUBLISHED'") == rows,
                Duration.ofSeconds(60));
        awaitTrue(() -> unbooked(clients) == 0, Duration.ofSeconds(60));
        awaitTrue(
                () -> {
                    wire.drain().forEach(d -> delivered.add(d.messageId()));
                    return new HashSet<>(delivered).size() >= rows;
                },
                Duration.ofSeconds(30));
        long unique = new HashSet<>(delivered).size();
        long bookings = db.count("SELECT count(*) FROM ledger_entries WHERE entry_type = 'CAPTURE'");
        long distinctBookings = db.count("SELECT count(DISTINCT message_id) FROM ledger_entries");
        assertEquals(rows, unique, "every row delivered");
        assertEquals(bookings, distinctBookings, "no payment booked twice");
        return rows + " rows, all PUBLISHED and delivered (" + (delivered.size() - unique) + " duplicate deliveries); "
                + clients.captured.size() + " captures, each booked once";
    }

    /** Captures the API confirmed to these clients that the ledger has not booked. */
    private long unbooked(Clients clients) {
        String ids = clients.captured.stream().map(UUID::toString).collect(java.util.stream.Collectors.joining(","));
        return db.count(
                "SELECT count(*) FROM unnest(string_to_array(?, ',')::uuid[]) AS c(id)"
                        + " WHERE NOT EXISTS (SELECT 1 FROM ledger_entries l WHERE l.order_id = c.id"
                        + " AND l.entry_type = 'CAPTURE')",
                ids);
    }

    private boolean publishedSince(long nanos) {
        long sinceMillis = Duration.ofNanos(System.nanoTime() - nanos).toMillis();
        return db.count(
                        "SELECT count(*) FROM message_outbox WHERE status = 'PUBLISHED'"
                                + " AND published_at >= now() - ? * interval '1 millisecond'",
                        sinceMillis)
                > 0;
    }

    private boolean bookedSince(long nanos) {
        long sinceMillis = Duration.ofNanos(System.nanoTime() - nanos).toMillis();
        return db.count(
                        "SELECT count(*) FROM processed_messages WHERE processed_at >= now() - ? * interval '1 millisecond'",
                        sinceMillis)
                > 0;
    }

    private URI uri(int port, String path) {
        return URI.create("http://" + clientLink.sandboxAddress() + ":" + port + path);
    }

    private int status(int port, String path) {
        try {
            return http.send(
                            HttpRequest.newBuilder(uri(port, path))
                                    .timeout(Duration.ofSeconds(20))
                                    .GET()
                                    .build(),
                            HttpResponse.BodyHandlers.discarding())
                    .statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** The readiness body when it is not ready, else "". */
    private String readiness(int port) {
        try {
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(uri(port, "/health/ready"))
                            .timeout(Duration.ofSeconds(20))
                            .GET()
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? "" : r.body();
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    /** How long {@code condition} took to hold (polled every 100 ms), failing after {@code timeout}. */
    private static Duration awaitTrue(BooleanSupplier condition, Duration timeout) {
        long start = System.nanoTime();
        await().atMost(timeout).pollInterval(Duration.ofMillis(100)).until(condition::getAsBoolean);
        return Duration.ofNanos(System.nanoTime() - start);
    }

    /**
     * Keeps the partition for the rest of {@link #OUTAGE} since {@code cut}, checking all along
     * that the link stays down (nothing healed it early).
     */
    private static void holdPartitioned(NetworkSandbox.Link link, long cut) {
        Duration left = Duration.ofNanos(Math.max(1, cut + OUTAGE.toNanos() - System.nanoTime()));
        await().during(left).atMost(left.plusSeconds(5)).until(link::partitioned);
    }

    private static String ms(Duration d) {
        return String.format("%.1f s", d.toMillis() / 1000.0);
    }

    private static Map<Integer, Long> statuses(List<Answer> answers) {
        Map<Integer, Long> out = new java.util.TreeMap<>();
        answers.forEach(a -> out.merge(a.status(), 1L, Long::sum));
        return out;
    }

    private static synchronized void report(String dependency, List<String> lines) throws IOException {
        StringBuilder b = new StringBuilder();
        b.append("\n## ")
                .append(dependency)
                .append(" partitioned for ")
                .append(OUTAGE.toSeconds())
                .append(" s (")
                .append(DEFAULTS ? "default timeouts" : "fast timeouts: socket " + SOCKET_TIMEOUT.toSeconds() + " s")
                .append(")\n\n");
        lines.forEach(l -> b.append("- ").append(l).append('\n'));
        System.out.print(b);
        Files.createDirectories(REPORT.getParent());
        Files.writeString(
                REPORT, b.toString(), java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
    }
}
