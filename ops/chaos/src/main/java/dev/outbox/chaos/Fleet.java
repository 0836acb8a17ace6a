package dev.outbox.chaos;

import dev.outbox.sample.ledger.LedgerConsumer;
import dev.outbox.testkit.JavaProcess;
import dev.outbox.testkit.net.NetworkSandbox;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Pattern;

/**
 * The processes under test, each a real JVM started from this class path: two APIs, two relays,
 * two ledger consumers. A slot keeps its port (API) and relay id across restarts, so clients and
 * the lease bookkeeping see the same names. A fault takes a slot's lock while it works on it; a
 * watchdog restarts a process that exits on its own and records it, since no fault here should
 * make a process give up.
 *
 * <p>With {@code --partitions} each slot lives in a {@link NetworkSandbox} of its own for the whole
 * run (its restarts too): PostgreSQL and the broker (for a relay, the broker's proxy) are reached
 * over links that a fault can black-hole, and an API listens on its sandbox's address.
 */
final class Fleet implements AutoCloseable {
    enum Kind {
        API("dev.outbox.api.ApiMain", "outbox-api"),
        RELAY("dev.outbox.relay.RelayMain", "outbox-relay"),
        CONSUMER("dev.outbox.consumer.runtime.ConsumerMain", "outbox-ledger", LedgerConsumer.NAME);

        final String mainClass;
        final String applicationName;
        final String[] args;

        Kind(String mainClass, String applicationName, String... args) {
            this.mainClass = mainClass;
            this.applicationName = applicationName;
            this.args = args;
        }
    }

    /** A process that exited without a fault asking for it. */
    record UnexpectedExit(String slot, int generation, int exitCode, double atSeconds, String logTail) {}

    final class Slot {
        final Kind kind;
        final int index;
        final String name;
        final int port;
        final ReentrantLock lock = new ReentrantLock();
        private volatile JavaProcess process;
        private volatile int generation;
        private volatile String relayId;
        /** With {@code --partitions}: the slot's namespace and its links; else null. */
        private NetworkSandbox sandbox;

        NetworkSandbox.Link database;
        NetworkSandbox.Link broker;
        private NetworkSandbox.Link client;

        Slot(Kind kind, int index, int port) {
            this.kind = kind;
            this.index = index;
            this.name = kind.name().toLowerCase() + "-" + (index + 1);
            this.port = port;
            this.relayId = name;
        }

        /** Where clients reach this API process. */
        String base() {
            return "http://" + (client != null ? client.sandboxAddress() : "127.0.0.1") + ":" + port;
        }

        boolean sandboxed() {
            return sandbox != null;
        }

        String relayId() {
            return relayId;
        }

        long pid() {
            return process.pid();
        }

        boolean alive() {
            JavaProcess p = process;
            return p != null && p.isAlive();
        }

        /** Starts the next generation; a relay keeps its id or, when {@code freshId}, gets a new one. */
        void start(boolean freshId) throws IOException {
            generation++;
            if (kind == Kind.RELAY && freshId) {
                relayId = name + "-g" + generation;
            }
            Map<String, String> env = new LinkedHashMap<>(env(this));
            JavaProcess p = sandbox == null
                    ? JavaProcess.start(JVM, name + "-g" + generation, kind.mainClass, env, kind.args)
                    : JavaProcess.startIn(sandbox, JVM, name + "-g" + generation, kind.mainClass, env, kind.args);
            logs.add(new Log(name + "-g" + generation, p.log()));
            process = p;
        }

        void awaitReady(Duration timeout) throws InterruptedException {
            if (kind == Kind.API) {
                awaitHttp(this, timeout);
            } else {
                process.awaitOutput(kind == Kind.RELAY ? RELAY_READY : CONSUMER_READY, timeout);
            }
        }

        void kill() throws InterruptedException {
            process.kill();
        }

        void signal(String signal) throws IOException, InterruptedException {
            Process p = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                    .inheritIO()
                    .start();
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IOException("kill -" + signal + " " + process.pid() + " failed");
            }
        }

        int terminate(Duration timeout) throws InterruptedException {
            return process.terminate(timeout);
        }

        String output() {
            return process.output();
        }
    }

    record Log(String name, Path path) {}

    private static final List<String> JVM = List.of("-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");
    private static final Pattern RELAY_READY = Pattern.compile("relay \\S+ running");
    private static final Pattern CONSUMER_READY = Pattern.compile("ledger consumer started");

    private final ChaosEnv env;
    private final ChaosOptions options;
    private final String relayBrokerUri;
    private final long startNanos;
    final List<Slot> slots = new ArrayList<>();
    final List<Log> logs = new CopyOnWriteArrayList<>();
    final List<UnexpectedExit> unexpectedExits = new CopyOnWriteArrayList<>();
    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2))
            .build();
    private volatile boolean watching;
    private Thread watchdog;

    Fleet(ChaosEnv env, ChaosOptions options, String relayBrokerUri, long startNanos) throws IOException {
        this.env = env;
        this.options = options;
        this.relayBrokerUri = relayBrokerUri;
        this.startNanos = startNanos;
        for (Kind k : Kind.values()) {
            for (int i = 0; i < 2; i++) {
                slots.add(new Slot(k, i, k == Kind.API ? freePort() : -1));
            }
        }
        if (options.partitions()) {
            try {
                for (Slot s : slots) {
                    sandbox(s);
                }
            } catch (IOException | RuntimeException e) {
                close();
                throw e;
            }
        }
    }

    private void sandbox(Slot s) throws IOException {
        s.sandbox = NetworkSandbox.create();
        URI db = URI.create(env.dbUrl.substring("jdbc:".length()));
        s.database = s.sandbox.forward(db.getHost(), db.getPort() == -1 ? 5432 : db.getPort());
        // a relay's broker is the proxy of the broker faults: its link leads there
        URI amqp = URI.create(s.kind == Kind.RELAY ? relayBrokerUri : env.amqpUri);
        s.broker = s.sandbox.forward(amqp.getHost(), amqp.getPort() == -1 ? 5672 : amqp.getPort());
        if (s.kind == Kind.API) {
            s.client = s.sandbox.link();
        }
    }

    List<Slot> of(Kind kind) {
        return slots.stream().filter(s -> s.kind == kind).toList();
    }

    /** Where clients reach the API processes: {@code http://host:port}. */
    List<String> apiBases() {
        return of(Kind.API).stream().map(Slot::base).toList();
    }

    void startAll() throws IOException, InterruptedException {
        for (Slot s : slots) {
            s.start(false);
        }
        for (Slot s : slots) {
            s.awaitReady(Duration.ofSeconds(90));
        }
        watching = true;
        watchdog = new Thread(this::watch, "chaos-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
    }

    private Map<String, String> env(Slot s) {
        Map<String, String> e = new LinkedHashMap<>(env.databaseEnv());
        e.putAll(env.processEnv);
        e.put("OUTBOX_DB_MIGRATE", "false");
        e.put("OUTBOX_DB_POOL_SIZE", "6");
        e.put("OUTBOX_DB_CONNECT_TIMEOUT", "3s");
        e.put("OUTBOX_STARTUP_WAIT", "60s");
        e.put("OUTBOX_AMQP_HEARTBEAT", "5s");
        e.put("OUTBOX_RETENTION_ENABLED", "false");
        e.put("OUTBOX_RELAY_HTTP_PORT", "-1");
        e.put("OUTBOX_LEDGER_HTTP_PORT", "-1");
        switch (s.kind) {
            case API -> {
                e.put("OUTBOX_AMQP_URI", env.amqpUri);
                e.put("OUTBOX_HTTP_HOST", s.client != null ? s.client.sandboxAddress() : "127.0.0.1");
                e.put("OUTBOX_HTTP_PORT", Integer.toString(s.port));
            }
            case RELAY -> {
                e.put("OUTBOX_AMQP_URI", relayBrokerUri);
                e.put("OUTBOX_RELAY_ID", s.relayId);
                e.putAll(options.relaySettings());
            }
            case CONSUMER -> e.put("OUTBOX_AMQP_URI", env.amqpUri);
            default -> throw new IllegalStateException(s.kind.name());
        }
        if (s.sandbox != null) {
            // the same servers, reached over the slot's links
            e.put(
                    "OUTBOX_DB_URL",
                    env.dbUrl.replaceFirst(
                            "^(jdbc:postgresql://)[^/]+", "$1" + s.database.hostAddress() + ":" + s.database.port()));
            e.put("OUTBOX_AMQP_URI", viaLink(e.get("OUTBOX_AMQP_URI"), s.broker));
        }
        return e;
    }

    private static String viaLink(String amqpUri, NetworkSandbox.Link link) {
        URI u = URI.create(amqpUri);
        return u.getScheme() + "://" + (u.getRawUserInfo() == null ? "" : u.getRawUserInfo() + "@") + link.hostAddress()
                + ":" + link.port() + (u.getRawPath() == null ? "" : u.getRawPath());
    }

    private void awaitHttp(Slot s, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        HttpRequest probe = HttpRequest.newBuilder(URI.create(s.base() + "/health/live"))
                .timeout(Duration.ofSeconds(2))
                .GET()
                .build();
        while (System.nanoTime() < deadline) {
            if (!s.alive()) {
                throw new IllegalStateException(s.name + " exited while starting:\n" + tail(s.output()));
            }
            try {
                if (http.send(probe, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException(s.name + " not live within " + timeout + ":\n" + tail(s.output()));
    }

    /** Restarts, and records, any process that died without a fault holding its slot. */
    private void watch() {
        while (watching) {
            for (Slot s : slots) {
                if (!watching || s.alive() || !s.lock.tryLock()) {
                    continue;
                }
                try {
                    if (!s.alive() && watching) {
                        int code = s.process.isAlive() ? 0 : exitCode(s);
                        unexpectedExits.add(
                                new UnexpectedExit(s.name, s.generation, code, seconds(), tail(s.output())));
                        System.out.printf(
                                "[chaos] %6.1fs %s exited by itself (code %d): restarting it%n",
                                seconds(), s.name, code);
                        s.start(false);
                    }
                } catch (IOException e) {
                    System.out.println("[chaos] cannot restart " + s.name + ": " + e);
                } finally {
                    s.lock.unlock();
                }
            }
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private static int exitCode(Slot s) {
        try {
            return s.terminate(Duration.ofSeconds(1));
        } catch (InterruptedException | AssertionError e) {
            return -1;
        }
    }

    private double seconds() {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    /** SIGTERM to every process (consumers last, so they drain what the relays sent), with exit codes. */
    Map<String, Integer> stopAll() throws InterruptedException {
        watching = false;
        if (watchdog != null) {
            watchdog.interrupt();
            watchdog.join(5_000);
        }
        Map<String, Integer> codes = new LinkedHashMap<>();
        for (Kind k : List.of(Kind.API, Kind.RELAY, Kind.CONSUMER)) {
            for (Slot s : of(k)) {
                if (s.alive()) {
                    try {
                        codes.put(s.name, s.terminate(Duration.ofSeconds(30)));
                    } catch (AssertionError e) {
                        codes.put(s.name, -1);
                        s.process.close();
                    }
                }
            }
        }
        return codes;
    }

    /** Copies every generation's log into {@code dir} and removes the temporary files. */
    void collectLogs(Path dir) throws IOException {
        Files.createDirectories(dir);
        for (Log l : logs) {
            if (Files.exists(l.path())) {
                Files.move(l.path(), dir.resolve(l.name() + ".log"), StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    static String tail(String output) {
        String[] lines = output.split("\n");
        return String.join("\n", java.util.Arrays.copyOfRange(lines, Math.max(0, lines.length - 15), lines.length));
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        }
    }

    @Override
    public void close() {
        watching = false;
        for (Slot s : slots) {
            if (s.process != null) {
                s.process.close();
            }
        }
        for (Slot s : slots) {
            if (s.sandbox != null) {
                s.sandbox.close();
            }
        }
    }
}
