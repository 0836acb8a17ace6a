package dev.outbox.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.config.Settings;
import dev.outbox.testkit.TestBroker;
import dev.outbox.testkit.TestDatabase;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The alert rules in ops/alerts parse, say what they need (an expression, a duration, a severity,
 * a summary, a runbook link that exists), and only use metrics that the running processes really
 * export: a renamed metric must break this test, not the pager.
 */
class AlertRulesIT {
    private static final Pattern METRIC = Pattern.compile("\\b(outbox_[a-z_]+|up)\\b");
    private static final Set<String> REQUIRED =
            Set.of("OutboxOldestPendingTooOld", "OutboxParkedMessages", "OutboxRelayDown", "OutboxLostLeases");

    @Test
    @SuppressWarnings("unchecked")
    void everyRuleIsWellFormedAndUsesMetricsTheProcessesExport() throws Exception {
        Path root = RepoFiles.root();
        Map<String, Object> doc = new Yaml().load(Files.readString(root.resolve("ops/alerts/outbox-rules.yml")));
        List<Map<String, Object>> groups = (List<Map<String, Object>>) doc.get("groups");
        assertNotNull(groups);
        String runbook = Files.readString(root.resolve("ops/RUNBOOK.md"));
        Set<String> anchors = anchors(runbook);

        Set<String> exported = exportedMetricNames();
        Set<String> alerts = new HashSet<>();
        List<String> problems = new ArrayList<>();
        for (Map<String, Object> group : groups) {
            for (Map<String, Object> rule : (List<Map<String, Object>>) group.get("rules")) {
                String name = (String) rule.get("alert");
                alerts.add(name);
                String expr = String.valueOf(rule.get("expr"));
                if (!balanced(expr)) {
                    problems.add(name + ": unbalanced brackets in " + expr);
                }
                if (!String.valueOf(rule.get("for")).matches("\\d+[smh]")) {
                    problems.add(name + ": 'for' must be a duration");
                }
                Map<String, Object> labels = (Map<String, Object>) rule.get("labels");
                if (labels == null || !Set.of("page", "ticket").contains(labels.get("severity"))) {
                    problems.add(name + ": severity must be page or ticket");
                }
                Map<String, Object> annotations = (Map<String, Object>) rule.get("annotations");
                if (annotations == null || annotations.get("summary") == null) {
                    problems.add(name + ": needs a summary");
                    continue;
                }
                String link = String.valueOf(annotations.get("runbook"));
                if (!link.startsWith("ops/RUNBOOK.md#") || !anchors.contains(link.substring(link.indexOf('#') + 1))) {
                    problems.add(name + ": runbook link " + link + " does not name a RUNBOOK.md heading");
                }
                Matcher m = METRIC.matcher(expr);
                while (m.find()) {
                    String metric = m.group(1);
                    if (!metric.equals("up") && !exported.contains(metric)) {
                        problems.add(name + ": " + metric + " is not exported by the API or the relay");
                    }
                }
            }
        }
        assertEquals(List.of(), problems);
        assertTrue(alerts.containsAll(REQUIRED), "required alerts " + REQUIRED + " in " + alerts);
    }

    /** GitHub-style anchors of the Markdown headings. */
    static Set<String> anchors(String markdown) {
        Set<String> out = new HashSet<>();
        for (String line : markdown.split("\n")) {
            if (line.startsWith("#")) {
                String text = line.replaceFirst("^#+\\s*", "").trim().toLowerCase();
                out.add(text.replaceAll("[^a-z0-9 _-]", "").replace(' ', '-'));
            }
        }
        return out;
    }

    private static boolean balanced(String expr) {
        int depth = 0;
        for (char c : expr.toCharArray()) {
            depth += c == '(' || c == '{' || c == '[' ? 1 : c == ')' || c == '}' || c == ']' ? -1 : 0;
            if (depth < 0) {
                return false;
            }
        }
        return depth == 0;
    }

    /**
     * Names (with _total/_bucket/... suffixes stripped and kept) scraped from a running API and
     * relay, in polling mode and in CDC mode (the CDC rules' metrics exist only there).
     */
    private static Set<String> exportedMetricNames() throws Exception {
        Set<String> names = exportedMetricNames(Map.of());
        TestDatabase db = TestDatabase.get();
        if (!"logical".equals(db.scalar("SELECT current_setting('wal_level')"))) {
            throw new IllegalStateException("the CDC rules need a relay in CDC mode, which needs wal_level = logical");
        }
        String slot = "alert_rules_it";
        try {
            names.addAll(exportedMetricNames(Map.of("OUTBOX_RELAY_MODE", "cdc", "OUTBOX_RELAY_CDC_SLOT", slot)));
        } finally {
            org.awaitility.Awaitility.await()
                    .atMost(java.time.Duration.ofSeconds(30))
                    .until(() ->
                            db.count("SELECT count(*) FROM pg_replication_slots WHERE slot_name = ? AND active", slot)
                                    == 0);
            db.rows("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = ?", slot);
        }
        return names;
    }

    private static Set<String> exportedMetricNames(Map<String, String> extra) throws Exception {
        Map<String, String> env = new HashMap<>(TestDatabase.get().env());
        env.putAll(extra);
        env.putAll(TestBroker.get().env());
        env.put("OUTBOX_HTTP_PORT", "0");
        env.put("OUTBOX_HTTP_HOST", "127.0.0.1");
        env.put("OUTBOX_RELAY_HTTP_PORT", "0");
        env.put("OUTBOX_LEDGER_HTTP_PORT", "0");
        Set<String> names = new HashSet<>();
        HttpClient http =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        try (Launcher launcher = Launcher.start(new Settings(env))) {
            for (int port : new int[] {launcher.api().port(), launcher.relay().httpPort()}) {
                String body = http.send(
                                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString())
                        .body();
                for (String line : body.split("\n")) {
                    if (!line.startsWith("#") && !line.isBlank()) {
                        names.add(line.split("[{ ]")[0]);
                    }
                }
            }
        }
        return names;
    }
}
