package dev.outbox.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * HTTP clients as a careful real client behaves: every write carries an {@code Idempotency-Key};
 * a timeout, a connection error or a 503 is retried with the same key, on either API process,
 * with capped backoff. Each client draws its orders' lives from the seed: placed only (one
 * event), placed and captured (two), placed and cancelled (two), placed, captured and cancelled
 * with a refund (four). Everything the API confirmed is recorded for the invariants.
 */
final class Workload {
    /** An order the API answered 201 for. */
    record Placed(String key, UUID orderId, String total, boolean replayed) {}

    /** A write the client gave up on: it does not know whether it happened. */
    record Abandoned(String op, String key, UUID orderId, String lastFailure) {}

    /** A 5xx answer: when (ms since the soak started) and which problem code. */
    record ServerError(long atMillis, int status, String code, String op) {}

    /** An answer no correct run produces, e.g. 409 for a retried capture: the retry was not idempotent. */
    record Unexpected(String op, String key, UUID orderId, int status, String body, boolean retried) {}

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration OP_DEADLINE = Duration.ofSeconds(90);

    /** {@code http://host:port} of each API process. */
    private final List<String> bases;

    private final long seed;
    private final int clients;
    private final long startNanos;
    private volatile boolean running;
    private final List<Thread> threads = new ArrayList<>();

    final Map<String, Placed> placed = new ConcurrentHashMap<>();
    /** When each order was answered 201 (epoch millis), for the failover test's pauses. */
    final ConcurrentLinkedQueue<Long> answered201 = new ConcurrentLinkedQueue<>();

    final Map<UUID, Boolean> captured = new ConcurrentHashMap<>();
    final Map<UUID, Boolean> cancelled = new ConcurrentHashMap<>();
    final ConcurrentLinkedQueue<Abandoned> abandoned = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedQueue<ServerError> serverErrors = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedQueue<Unexpected> unexpected = new ConcurrentLinkedQueue<>();
    final Map<String, AtomicLong> failures = new ConcurrentHashMap<>();
    final AtomicLong requests = new AtomicLong();
    final AtomicLong retries = new AtomicLong();
    final AtomicLong replays = new AtomicLong();
    final AtomicLong writes = new AtomicLong();

    Workload(List<String> bases, long seed, int clients, long startNanos) {
        this.bases = bases;
        this.seed = seed;
        this.clients = clients;
        this.startNanos = startNanos;
    }

    void start() {
        running = true;
        for (int i = 0; i < clients; i++) {
            int n = i;
            Thread t = new Thread(() -> client(n), "chaos-client-" + n);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
    }

    /** Stops placing new orders; a write under way finishes (retrying) within its deadline. */
    void stop() throws InterruptedException {
        running = false;
        for (Thread t : threads) {
            t.join(OP_DEADLINE.toMillis() + 10_000);
        }
    }

    /** The longest time without a 201 in [from, to] (epoch millis, edges included) in seconds; -1 if none. */
    double longestGapBetween201s(long from, long to) {
        List<Long> times =
                answered201.stream().filter(t -> t >= from && t <= to).sorted().toList();
        if (times.isEmpty()) {
            return -1;
        }
        long previous = from;
        long longest = 0;
        for (long t : times) {
            longest = Math.max(longest, t - previous);
            previous = t;
        }
        return Math.max(longest, to - previous) / 1000.0;
    }

    long placedCount() {
        return placed.size();
    }

    private void client(int n) {
        Random rnd = new Random(seed * 1_000_003L + n);
        HttpClient http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(2))
                .build();
        Client c = new Client(http, rnd, n);
        while (running) {
            try {
                c.lifeOfAnOrder();
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                // a bug in the client, not a fault of the system: make it visible, keep the load going
                unexpected.add(new Unexpected("client", "-", null, -1, e.toString(), false));
            }
        }
    }

    private final class Client {
        private final HttpClient http;
        private final Random rnd;
        private int api;

        Client(HttpClient http, Random rnd, int n) {
            this.http = http;
            this.rnd = rnd;
            this.api = n % bases.size();
        }

        void lifeOfAnOrder() throws InterruptedException {
            int life = rnd.nextInt(100);
            String key = UUID.randomUUID().toString();
            int quantity = 1 + rnd.nextInt(3);
            String body = "{\"customerId\":\"chaos-" + key + "\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\"SKU-"
                    + rnd.nextInt(50) + "\",\"quantity\":" + quantity + ",\"unitPrice\":\"12.35\"}]}";
            Answer a = write("place", key, null, "/orders", body);
            if (a == null || a.status != 201) {
                return;
            }
            JsonNode order = parse(a.body);
            UUID id = UUID.fromString(order.get("id").asText());
            String total = order.get("total").asText();
            placed.put(key, new Placed(key, id, total, a.replayed));
            answered201.add(System.currentTimeMillis());
            boolean capture = life >= 25 && life < 50 || life >= 65;
            boolean cancel = life >= 50;
            if (capture) {
                Answer c = write(
                        "capture",
                        key + "-capture",
                        id,
                        "/orders/" + id + "/capture",
                        "{\"amount\":\"" + total + "\"}");
                if (c == null || c.status != 200) {
                    return;
                }
                captured.put(id, true);
            }
            if (cancel) {
                Answer c = write(
                        "cancel", key + "-cancel", id, "/orders/" + id + "/cancel", "{\"reason\":\"chaos soak\"}");
                if (c != null && c.status == 200) {
                    cancelled.put(id, true);
                }
            }
        }

        /** One write, retried with the same key until it has an answer, or given up at the deadline. */
        private Answer write(String op, String key, UUID orderId, String path, String body)
                throws InterruptedException {
            long deadline = System.nanoTime() + OP_DEADLINE.toNanos();
            long backoff = 100;
            String lastFailure = null;
            boolean retried = false;
            writes.incrementAndGet();
            while (true) {
                if (retried) {
                    retries.incrementAndGet();
                }
                HttpRequest request = HttpRequest.newBuilder(URI.create(bases.get(api) + path))
                        .timeout(Duration.ofSeconds(5))
                        .header("Content-Type", "application/json")
                        .header("Idempotency-Key", key)
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build();
                requests.incrementAndGet();
                try {
                    HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
                    int status = r.statusCode();
                    if (status >= 500) {
                        serverErrors.add(new ServerError(millis(), status, code(r.body()), op));
                        lastFailure = status + " " + code(r.body());
                        count(lastFailure);
                    } else {
                        boolean replayed = r.headers()
                                .firstValue("Idempotent-Replayed")
                                .map("true"::equals)
                                .orElse(false);
                        if (replayed) {
                            replays.incrementAndGet();
                        }
                        if (status != 201 && status != 200) {
                            unexpected.add(new Unexpected(op, key, orderId, status, r.body(), retried));
                        }
                        return new Answer(status, r.body(), replayed);
                    }
                } catch (HttpTimeoutException e) {
                    lastFailure = "timeout";
                    count(lastFailure);
                } catch (IOException e) {
                    lastFailure = "connection error";
                    count(lastFailure);
                }
                if (System.nanoTime() > deadline) {
                    abandoned.add(new Abandoned(op, key, orderId, lastFailure));
                    return null;
                }
                // the other API process may be up while this one is not; either is as good
                if (rnd.nextBoolean()) {
                    api = (api + 1) % bases.size();
                }
                Thread.sleep(backoff / 2 + rnd.nextInt((int) backoff));
                backoff = Math.min(backoff * 2, 2_000);
                retried = true;
            }
        }

        private long millis() {
            return (System.nanoTime() - startNanos) / 1_000_000;
        }
    }

    private record Answer(int status, String body, boolean replayed) {}

    private void count(String failure) {
        failures.computeIfAbsent(failure, f -> new AtomicLong()).incrementAndGet();
    }

    private static JsonNode parse(String body) {
        try {
            return JSON.readTree(body);
        } catch (IOException e) {
            throw new IllegalStateException("not JSON: " + body, e);
        }
    }

    private static String code(String body) {
        try {
            JsonNode n = JSON.readTree(body);
            return n.hasNonNull("code") ? n.get("code").asText() : "-";
        } catch (IOException e) {
            return "not-json";
        }
    }
}
