package dev.outbox.bench;

import com.rabbitmq.client.AMQP;
import dev.outbox.api.ApiMain;
import dev.outbox.kernel.json.Json;
import dev.outbox.messaging.BrokerConfig;
import dev.outbox.messaging.Topology;
import dev.outbox.messaging.publish.ConfirmPublisher;
import dev.outbox.messaging.publish.OutboundMessage;
import dev.outbox.relay.RelayMain;
import dev.outbox.testkit.JavaProcess;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * The run the dashboard picture is drawn over: the API, a relay and the ledger consumer as their
 * own processes (production JVM settings, metrics on fixed loopback ports Prometheus scrapes), a
 * steady open-loop order rate over HTTP, and on top of it what each panel is for: a backlog burst,
 * a binding taken away for a few seconds (those rows parked, blocking their orders' next
 * versions), a few malformed messages the consumer dead-letters, replays it skips as duplicates,
 * the relay killed and started again a minute later, and the operator's bulk retry of the parked
 * rows.
 */
final class DashboardLoad implements AutoCloseable {
    private static final String ORDER = "{\"customerId\":\"dashboard\",\"currency\":\"EUR\",\"lines\":["
            + "{\"sku\":\"SKU-1\",\"quantity\":2,\"unitPrice\":\"19.99\"},"
            + "{\"sku\":\"SKU-GIFT-WRAP\",\"quantity\":1,\"unitPrice\":\"2.50\"}]}";
    private static final String TOTAL = "42.48";
    private static final Pattern API_PORT = Pattern.compile("API listening on http://127\\.0\\.0\\.1:(\\d+)/");
    private static final Duration START = Duration.ofSeconds(120);
    /** On the class path at run time through the ledger, which compiles against the front door only. */
    private static final String CONSUMER_MAIN = "dev.outbox.consumer.runtime.ConsumerMain";

    /** Ports fixed before anything starts: Prometheus's configuration names them, and a restarted relay keeps its own. */
    final int apiPort = freePort();

    final int relayPort = freePort();
    final int ledgerPort = freePort();
    private final BenchEnv env;
    private final String token = "dashboard-" + UUID.randomUUID();
    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private final List<JavaProcess> started = new ArrayList<>();
    private final AtomicLong placed = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private JavaProcess relay;

    DashboardLoad(BenchEnv env) {
        this.env = env;
    }

    /** Where Prometheus finds each process's {@code /metrics}, by the job names the alert rules assume. */
    Map<String, String> scrapeTargets() {
        Map<String, String> jobs = new LinkedHashMap<>();
        jobs.put("outbox-api", "127.0.0.1:" + apiPort);
        jobs.put("outbox-relay", "127.0.0.1:" + relayPort);
        jobs.put("outbox-ledger", "127.0.0.1:" + ledgerPort);
        return jobs;
    }

    void startProcesses() throws Exception {
        env.clean();
        Map<String, String> ledgerEnv = processEnv();
        ledgerEnv.put("OUTBOX_LEDGER_HTTP_HOST", "127.0.0.1");
        ledgerEnv.put("OUTBOX_LEDGER_HTTP_PORT", Integer.toString(ledgerPort));
        JavaProcess ledger = started(BenchProcess.start("dashboard-ledger", CONSUMER_MAIN, ledgerEnv, "ledger"));
        Map<String, String> apiEnv = processEnv();
        apiEnv.put("OUTBOX_HTTP_HOST", "127.0.0.1");
        apiEnv.put("OUTBOX_HTTP_PORT", Integer.toString(apiPort));
        apiEnv.put("OUTBOX_OPS_TOKEN", token);
        JavaProcess api = started(BenchProcess.start("dashboard-api", ApiMain.class.getName(), apiEnv));
        startRelay();
        ledger.awaitOutput(Pattern.compile("ledger consumer running"), START);
        api.awaitOutput(API_PORT, START);
    }

    private void startRelay() throws Exception {
        Map<String, String> relayEnv = processEnv();
        relayEnv.put("OUTBOX_RELAY_ID", "dashboard-relay");
        relayEnv.put("OUTBOX_RELAY_HTTP_HOST", "127.0.0.1");
        relayEnv.put("OUTBOX_RELAY_HTTP_PORT", Integer.toString(relayPort));
        relay = started(BenchProcess.start("dashboard-relay", RelayMain.class.getName(), relayEnv));
        relay.awaitOutput(Pattern.compile("relay dashboard-relay running"), START);
    }

    private Map<String, String> processEnv() {
        return new HashMap<>(env.processEnv());
    }

    private JavaProcess started(JavaProcess p) {
        started.add(p);
        return p;
    }

    /**
     * Drives the run: {@code scale} 1 is about four minutes, smaller shortens every phase alike.
     * Returns the phases as they happened, in seconds from {@code t0}.
     */
    List<DashboardPicture.Phase> run(long t0Nanos, double scale, int ordersPerSecond) throws Exception {
        List<DashboardPicture.Phase> phases = new ArrayList<>();
        ScheduledExecutorService orders = Executors.newSingleThreadScheduledExecutor();
        try {
            orders.scheduleAtFixedRate(
                    this::placeAndMaybeCapture, 0, 1_000_000 / ordersPerSecond, TimeUnit.MICROSECONDS);

            at(t0Nanos, 20 * scale);
            int burst = (int) Math.max(2_000, 10_000 * scale);
            env.backlog(Backlog.events(burst));
            phases.add(instant("A", t0Nanos, String.format("a burst of %,d rows in one transaction", burst)));

            at(t0Nanos, 60 * scale);
            double unboundAt = seconds(t0Nanos);
            binding(false);
            malformed(5);
            int replayed = replay(20);
            at(t0Nanos, 60 * scale + Math.max(3, 10 * scale));
            binding(true);
            awaitParked(t0Nanos, 90 * scale);
            phases.add(new DashboardPicture.Phase(
                    "B",
                    unboundAt,
                    seconds(t0Nanos),
                    "order.created unbound from the ledger's queue (those rows parked UNROUTABLE, their captures"
                            + " blocked) until the binding is back; 5 malformed messages, " + replayed + " replays"));

            at(t0Nanos, 90 * scale);
            double killedAt = seconds(t0Nanos);
            relay.kill();
            at(t0Nanos, 150 * scale);
            startRelay();
            phases.add(new DashboardPicture.Phase(
                    "C", killedAt, seconds(t0Nanos), "the relay SIGKILLed, started again after a minute"));

            at(t0Nanos, 185 * scale);
            int retried = retryParked();
            phases.add(instant("D", t0Nanos, retried + " parked rows retried in bulk (the runbook's fix)"));

            at(t0Nanos, 215 * scale);
        } finally {
            orders.shutdownNow();
            orders.awaitTermination(30, TimeUnit.SECONDS);
        }
        at(t0Nanos, 230 * scale);
        return phases;
    }

    long ordersPlaced() {
        return placed.get();
    }

    long ordersRefused() {
        return refused.get();
    }

    /** One order; every second one captured as well once it is placed, so the ledger books something. */
    private void placeAndMaybeCapture() {
        long k = placed.incrementAndGet();
        post("/orders", ORDER)
                .thenCompose(r -> {
                    if (r.statusCode() != 201) {
                        refused.incrementAndGet();
                        return CompletableFuture.completedFuture(r);
                    }
                    if (k % 2 != 0) {
                        return CompletableFuture.completedFuture(r);
                    }
                    String id;
                    try {
                        id = Json.mapper().readTree(r.body()).get("id").asText();
                    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                        return CompletableFuture.failedFuture(e);
                    }
                    return post("/orders/" + id + "/capture", "{\"amount\":\"" + TOTAL + "\"}");
                })
                .whenComplete((r, e) -> {
                    if (e != null || r.statusCode() >= 300) {
                        refused.incrementAndGet();
                    }
                });
    }

    private CompletableFuture<HttpResponse<String>> post(String path, String body) {
        return http.sendAsync(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + apiPort + path))
                        .timeout(Duration.ofSeconds(30))
                        .header("Content-Type", "application/json")
                        .header("Authorization", "Bearer " + token)
                        .header("X-Operator", "dashboard-run")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /**
     * Takes the ledger queue's binding for {@code order.created} away, or gives it back: while it is
     * away no queue is bound to that key, so the broker returns those messages (312 NO_ROUTE), the
     * relay parks them as {@code UNROUTABLE}, and each order's capture waits behind its creation.
     */
    private void binding(boolean bound) {
        env.broker.withChannel(ch -> {
            if (bound) {
                ch.queueBind(BenchEnv.QUEUE, Topology.ORDERS_EXCHANGE, "order.created");
            } else {
                ch.queueUnbind(BenchEnv.QUEUE, Topology.ORDERS_EXCHANGE, "order.created");
            }
        });
    }

    /**
     * Messages no outbox wrote: a message id but no type and no contract header, a body that is not
     * JSON. Sent the one way this project sends anything, the confirm publisher, alone and
     * mandatory, so a message the broker could not route is an error here, not a silent drop.
     * payment.captured: order.created is the key this phase unbinds.
     */
    private void malformed(int count) {
        for (int i = 0; i < count; i++) {
            ConfirmPublisher.SoloOutcome outcome = ConfirmPublisher.publishAlone(
                    env.broker.connection(),
                    new OutboundMessage(
                            Topology.ORDERS_EXCHANGE,
                            "payment.captured",
                            new AMQP.BasicProperties.Builder()
                                    .messageId(UUID.randomUUID().toString())
                                    .deliveryMode(2)
                                    .build(),
                            ("not an event " + i).getBytes(StandardCharsets.UTF_8)),
                    Duration.ofSeconds(10),
                    BrokerConfig.DEFAULT_MAX_MESSAGE_BYTES);
            if (!outcome.confirmed()) {
                throw new IllegalStateException("a malformed message did not reach the ledger: " + outcome.detail());
            }
        }
    }

    /** Replays published captures through the ops API: the ledger has them, so each arrives as a duplicate. */
    private int replay(int count) throws Exception {
        int replayed = 0;
        for (Map<String, Object> row : env.db.rows(
                "SELECT id::text AS id FROM message_outbox WHERE status = 'PUBLISHED'"
                        + " AND message_type = 'payment.captured' ORDER BY published_at LIMIT ?",
                count)) {
            HttpResponse<String> r = post(
                            "/ops/outbox/" + row.get("id") + "/replay", "{\"reason\":\"dashboard run: duplicates\"}")
                    .get(30, TimeUnit.SECONDS);
            replayed += r.statusCode() == 200 ? 1 : 0;
        }
        return replayed;
    }

    /**
     * Phase B only shows what it should if the broker returned the unbound key's messages: a queue
     * of another tool bound to the exchange on the same vhost (a catch-all {@code #}) routes them, and
     * nothing parks. Waits for the relay to park one, until {@code bySeconds} into the run, and
     * stops the run saying why otherwise.
     */
    private void awaitParked(long t0Nanos, double bySeconds) throws InterruptedException {
        while (env.db.count("SELECT count(*) FROM message_outbox WHERE last_error_code = 'UNROUTABLE'") == 0) {
            if (seconds(t0Nanos) > bySeconds) {
                throw new IllegalStateException("phase B parked nothing: a queue other than the ledger's routes"
                        + " order.created on this vhost; give ops/dashboard.sh a vhost of its own");
            }
            Thread.sleep(200);
        }
    }

    /** The runbook's fix for UNROUTABLE once the binding is back: retry the parked rows in bulk. */
    private int retryParked() throws Exception {
        HttpResponse<String> r = post(
                        "/ops/outbox/retry",
                        "{\"errorCode\":\"UNROUTABLE\",\"status\":\"PARKED\",\"limit\":500,"
                                + "\"reason\":\"dashboard run: order.created bound again\"}")
                .get(30, TimeUnit.SECONDS);
        if (r.statusCode() != 200) {
            throw new IllegalStateException("bulk retry answered " + r.statusCode() + ": " + r.body());
        }
        return Json.mapper().readTree(r.body()).path("retried").asInt();
    }

    private static DashboardPicture.Phase instant(String letter, long t0Nanos, String what) {
        double now = seconds(t0Nanos);
        return new DashboardPicture.Phase(letter, now, now, what);
    }

    private static double seconds(long t0Nanos) {
        return (System.nanoTime() - t0Nanos) / 1e9;
    }

    /** Sleeps until {@code seconds} into the run: the phases keep their schedule however long each step took. */
    private static void at(long t0Nanos, double seconds) throws InterruptedException {
        long wait = t0Nanos + (long) (seconds * 1e9) - System.nanoTime();
        if (wait > 0) {
            TimeUnit.NANOSECONDS.sleep(wait);
        }
    }

    static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException("no free port", e);
        }
    }

    @Override
    public void close() {
        for (JavaProcess p : started) {
            p.close();
        }
        binding(true);
    }
}
