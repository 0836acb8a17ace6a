package dev.outbox.launcher;

import dev.outbox.config.Settings;
import dev.outbox.consumer.runtime.ConsumerApp;
import dev.outbox.testkit.TestDatabase;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import org.awaitility.Awaitility;

/**
 * What the running processes really export on {@code /metrics}: every sample name (with its
 * {@code _total}, {@code _bucket}, {@code _count}, {@code _sum}, {@code _max} suffix, as a query
 * names it) and the label names it carries, scraped from the API, the relay and every consumer,
 * once with the relay polling and once in CDC mode (the CDC metrics exist only there). Alert
 * rules and dashboard queries are checked against this, so a renamed metric or a dropped label
 * breaks a test rather than a pager or a panel. Scraped once per test JVM: starting the system
 * twice costs half a minute and finds the same names.
 */
final class ExportedMetrics {
    /** Labels Prometheus adds to every scraped sample (its target labels). */
    static final Set<String> TARGET_LABELS = Set.of("job", "instance");

    /** Series Prometheus makes itself for every target, with their labels. */
    private static final Map<String, Set<String>> PROMETHEUS_OWN = Map.of(
            "up", TARGET_LABELS,
            "scrape_duration_seconds", TARGET_LABELS,
            "scrape_samples_scraped", TARGET_LABELS);

    static final String UNKNOWN_STATUS_SERIES = "outbox_unknown_status_count";

    private static Map<String, Set<String>> scraped;

    private ExportedMetrics() {}

    /** Every exported sample name with the labels it has (target labels included), sorted. */
    static synchronized Map<String, Set<String>> labelsByName() throws Exception {
        if (scraped == null) {
            Map<String, Set<String>> all = new TreeMap<>();
            merge(all, scrapeWithARowInAStatusOfANewerVersion());
            merge(all, scrapeInCdcMode());
            all.values().forEach(labels -> labels.addAll(TARGET_LABELS));
            merge(all, PROMETHEUS_OWN);
            Map<String, Set<String>> frozen = new TreeMap<>();
            all.forEach((name, labels) -> frozen.put(name, Collections.unmodifiableSet(labels)));
            scraped = Collections.unmodifiableMap(frozen);
        }
        return scraped;
    }

    private static void merge(Map<String, Set<String>> into, Map<String, Set<String>> from) {
        from.forEach((name, labels) ->
                into.computeIfAbsent(name, k -> new TreeSet<>()).addAll(labels));
    }

    /**
     * The per-status series of rows in a status this version does not know exists only while such
     * a row does (a newer version's, in a rolling upgrade): one is written for the scrape, so that
     * an alert on it is held to the name and labels the processes really export.
     */
    private static Map<String, Set<String>> scrapeWithARowInAStatusOfANewerVersion() throws Exception {
        TestDatabase db = TestDatabase.get();
        UUID probe = UUID.randomUUID();
        db.update(
                "INSERT INTO message_outbox (id, aggregate_type, aggregate_id, message_type, exchange_name,"
                        + " routing_key, payload, status) VALUES (?, 'exported-metrics', ?, 'order.created',"
                        + " 'orders.events', 'order.created', '{}'::jsonb, 'EXPORTED_METRICS_PROBE')",
                probe,
                probe.toString());
        try {
            return scrape(Map.of(), UNKNOWN_STATUS_SERIES);
        } finally {
            db.update("DELETE FROM message_outbox WHERE id = ?", probe);
        }
    }

    private static Map<String, Set<String>> scrapeInCdcMode() throws Exception {
        TestDatabase db = TestDatabase.get();
        if (!"logical".equals(db.scalar("SELECT current_setting('wal_level')"))) {
            throw new IllegalStateException(
                    "the CDC metrics need a relay in CDC mode, which needs wal_level = logical");
        }
        String slot = "exported_metrics_it";
        try {
            return scrape(Map.of("OUTBOX_RELAY_MODE", "cdc", "OUTBOX_RELAY_CDC_SLOT", slot), null);
        } finally {
            Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .until(() ->
                            db.count("SELECT count(*) FROM pg_replication_slots WHERE slot_name = ? AND active", slot)
                                    == 0);
            db.rows("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = ?", slot);
        }
    }

    /**
     * The whole system in this JVM (API, relay, the consumers on the class path), each scraped on
     * its own port; again until {@code awaited} (a sample name, or null) is among them, as a gauge
     * read from the database shows a new series from the scrape after the snapshot that found it.
     */
    private static Map<String, Set<String>> scrape(Map<String, String> extra, String awaited) throws Exception {
        Map<String, Set<String>> names = new HashMap<>();
        HttpClient http =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        try (Launcher launcher = Launcher.start(new Settings(TestSystem.env(extra)))) {
            List<Integer> ports = new ArrayList<>(
                    List.of(launcher.api().port(), launcher.relay().httpPort()));
            for (ConsumerApp consumer : launcher.consumers()) {
                ports.add(consumer.httpPort());
            }
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> {
                names.clear();
                scrapeAll(http, ports, names);
                return awaited == null || names.containsKey(awaited);
            });
        }
        return names;
    }

    private static void scrapeAll(HttpClient http, List<Integer> ports, Map<String, Set<String>> names)
            throws Exception {
        for (int port : ports) {
            String body = http.send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body();
            for (String line : body.split("\n")) {
                if (!line.startsWith("#") && !line.isBlank()) {
                    names.computeIfAbsent(name(line), k -> new TreeSet<>()).addAll(labelNames(line));
                }
            }
        }
    }

    private static String name(String sample) {
        return sample.split("[{ ]")[0];
    }

    /** The label names of one exposition line: {@code name{a="x",b="y, \"z\""} 1.0}. */
    static Set<String> labelNames(String sample) {
        Set<String> out = new TreeSet<>();
        int open = sample.indexOf('{');
        if (open < 0 || open > sample.indexOf(' ')) {
            return out;
        }
        int i = open + 1;
        while (i < sample.length() && sample.charAt(i) != '}') {
            int eq = sample.indexOf('=', i);
            out.add(sample.substring(i, eq).trim());
            i = eq + 2; // past ="
            while (sample.charAt(i) != '"') {
                i += sample.charAt(i) == '\\' ? 2 : 1;
            }
            i++; // past the closing quote
            if (sample.charAt(i) == ',') {
                i++;
            }
        }
        return out;
    }
}
