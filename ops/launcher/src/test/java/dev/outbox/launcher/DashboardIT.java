package dev.outbox.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.outbox.kernel.json.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Grafana dashboard beside the alert rules ({@code ops/alerts/outbox-dashboard.json}): every
 * panel's query names only metrics the running API, relay and consumer export, and only labels
 * those metrics carry ({@link ExportedMetrics}, the same scrape {@link AlertRulesIT} checks the
 * rules against); it is a dashboard Grafana imports anywhere (a Prometheus data-source variable
 * that every query uses, unique panel ids, a grid position each, no overlaps); every panel says
 * what it answers and where the runbook and the alert are, and a panel plotting what an alert
 * measures draws the alert's threshold; and it shows every metric seed 001 section 22 asks for.
 */
class DashboardIT {
    static final String DASHBOARD = "ops/alerts/outbox-dashboard.json";
    private static final String DATASOURCE = "${datasource}";
    private static final Pattern ALERT = Pattern.compile("\\bOutbox[A-Z][A-Za-z]+\\b");
    private static final Pattern RUNBOOK = Pattern.compile("ops/RUNBOOK\\.md#([a-z0-9_-]+)");
    private static final Pattern ALERT_THRESHOLD = Pattern.compile(">\\s*([0-9.]+(?:e[0-9]+)?)\\s*$");

    /** Seed 001 section 22's metrics (and the commit-to-publish histogram), as this service exports them. */
    private static final Set<String> MUST_SHOW = Set.of(
            "outbox_pending_count",
            "outbox_in_progress_count",
            "outbox_retryable_failed_count",
            "outbox_parked_count",
            "outbox_oldest_pending_age_seconds",
            "outbox_publish_attempts_total",
            "outbox_publish_successes_total",
            "outbox_publish_failures_total",
            "outbox_confirm_latency_seconds_bucket",
            "outbox_batch_size_sum",
            "outbox_stale_locks_total",
            "outbox_lost_leases_total",
            "outbox_commit_to_publish_seconds_bucket",
            "outbox_blocked_aggregates",
            "outbox_relays_live",
            "outbox_broker_available",
            "outbox_consumer_applied_total",
            "outbox_consumer_duplicates_total",
            "outbox_consumer_dead_lettered_total");

    private static JsonNode dashboard;
    private static List<JsonNode> panels;

    @BeforeAll
    static void read() throws Exception {
        dashboard = Json.mapper().readTree(Files.readString(RepoFiles.root().resolve(DASHBOARD)));
        panels = new ArrayList<>();
        dashboard.path("panels").forEach(panels::add);
    }

    @Test
    void everyQueryNamesMetricsAndLabelsTheProcessesExport() throws Exception {
        Map<String, Set<String>> exported = ExportedMetrics.labelsByName();
        List<String> problems = new ArrayList<>();
        Set<String> shown = new TreeSet<>();
        for (JsonNode panel : panels) {
            for (JsonNode target : panel.path("targets")) {
                String where = panel.path("title").asText() + " / "
                        + target.path("refId").asText();
                try {
                    PromQl.Analysis a = PromQl.analyse(expr(target), exported);
                    shown.addAll(a.metrics());
                    a.problems().forEach(p -> problems.add(where + ": " + p));
                    for (String label :
                            PromQl.legendLabels(target.path("legendFormat").asText())) {
                        if (!a.labels().contains(label)) {
                            problems.add(where + ": legend {{" + label + "}} but the result carries " + a.labels());
                        }
                    }
                } catch (IllegalArgumentException e) {
                    problems.add(where + ": " + e.getMessage());
                }
            }
        }
        assertEquals(List.of(), problems);
        Set<String> missing = new TreeSet<>(MUST_SHOW);
        missing.removeAll(shown);
        assertEquals(Set.of(), missing, "section 22's metrics the dashboard does not show");
    }

    @Test
    void isAWellFormedDashboardThatImportsAnywhere() {
        List<String> problems = new ArrayList<>();
        for (String field : List.of("uid", "title")) {
            if (dashboard.path(field).asText().isBlank()) {
                problems.add("no " + field);
            }
        }
        if (dashboard.path("schemaVersion").asInt() < 36) {
            problems.add("schemaVersion " + dashboard.path("schemaVersion") + ": Grafana 9 and later expect 36+");
        }
        boolean variable = false;
        for (JsonNode v : dashboard.path("templating").path("list")) {
            variable |= v.path("name").asText().equals("datasource")
                    && v.path("type").asText().equals("datasource")
                    && v.path("query").asText().equals("prometheus");
        }
        if (!variable) {
            problems.add("no Prometheus data-source variable named datasource: the import would be tied to one");
        }
        Set<Integer> ids = new HashSet<>();
        List<int[]> cells = new ArrayList<>();
        for (JsonNode panel : panels) {
            String title = panel.path("title").asText();
            if (!panel.path("id").isInt() || !ids.add(panel.path("id").asInt())) {
                problems.add(title + ": panel id " + panel.path("id") + " missing or not unique");
            }
            JsonNode grid = panel.path("gridPos");
            int x = grid.path("x").asInt(-1);
            int y = grid.path("y").asInt(-1);
            int w = grid.path("w").asInt(0);
            int h = grid.path("h").asInt(0);
            if (!grid.path("x").isInt() || !grid.path("y").isInt() || x < 0 || y < 0 || w < 1 || h < 1 || x + w > 24) {
                problems.add(title + ": gridPos " + grid + " is not a place on the 24-column grid");
                continue;
            }
            for (int[] other : cells) {
                if (x < other[0] + other[2] && other[0] < x + w && y < other[1] + other[3] && other[1] < y + h) {
                    problems.add(title + ": overlaps another panel at " + grid);
                }
            }
            cells.add(new int[] {x, y, w, h});
            if (panel.has("targets")) {
                if (!panel.path("datasource").path("uid").asText().equals(DATASOURCE)) {
                    problems.add(title + ": the panel's data source is not " + DATASOURCE);
                }
                Set<String> refs = new HashSet<>();
                for (JsonNode target : panel.path("targets")) {
                    if (!target.path("datasource").path("uid").asText().equals(DATASOURCE)) {
                        problems.add(title + ": a query's data source is not " + DATASOURCE);
                    }
                    if (!refs.add(target.path("refId").asText())
                            || target.path("expr").asText().isBlank()) {
                        problems.add(title + ": a query without an expression or a unique refId");
                    }
                }
            } else if (!Set.of("row", "text").contains(panel.path("type").asText())) {
                problems.add(title + ": a " + panel.path("type").asText() + " panel without queries");
            }
        }
        assertEquals(List.of(), problems);
    }

    @Test
    void everyPanelSaysWhatItAnswersAndWhereTheRunbookAndTheAlertAre() throws Exception {
        Path root = RepoFiles.root();
        Set<String> anchors = AlertRulesIT.anchors(Files.readString(root.resolve("ops/RUNBOOK.md")));
        Map<String, String> rules = new HashMap<>();
        for (Map<String, Object> rule : AlertRulesIT.rules(root)) {
            rules.put(
                    (String) rule.get("alert"), String.valueOf(rule.get("expr")).trim());
        }
        List<String> problems = new ArrayList<>();
        Set<String> plotted = new TreeSet<>();
        for (JsonNode panel : panels) {
            if (panel.path("type").asText().equals("row")) {
                continue;
            }
            String title = panel.path("title").asText();
            String description = panel.path("description").asText();
            if (!description.contains("?")) {
                problems.add(title + ": the description does not say which question the panel answers");
            }
            Matcher link = RUNBOOK.matcher(description);
            if (!link.find()) {
                problems.add(title + ": the description names no runbook heading (ops/RUNBOOK.md#...)");
            } else if (!anchors.contains(link.group(1))) {
                problems.add(title + ": ops/RUNBOOK.md#" + link.group(1) + " is no heading of the runbook");
            }
            Set<Double> steps = new HashSet<>();
            for (JsonNode step : panel.path("fieldConfig")
                    .path("defaults")
                    .path("thresholds")
                    .path("steps")) {
                if (step.path("value").isNumber()) {
                    steps.add(step.path("value").asDouble());
                }
            }
            Matcher alert = ALERT.matcher(description);
            while (alert.find()) {
                if (!rules.containsKey(alert.group())) {
                    problems.add(title + ": names alert " + alert.group() + ", which the rules do not have");
                }
            }
            for (Map.Entry<String, String> rule : rules.entrySet()) {
                // a panel that plots what an alert measures draws the alert's threshold on it
                Matcher threshold = ALERT_THRESHOLD.matcher(rule.getValue());
                if (!threshold.find()) {
                    continue;
                }
                String measured = measure(rule.getValue().substring(0, threshold.start()));
                double value = Double.parseDouble(threshold.group(1));
                for (JsonNode target : panel.path("targets")) {
                    if (!measure(expr(target)).equals(measured)) {
                        continue;
                    }
                    plotted.add(rule.getKey());
                    // Grafana colours from a step's value on: "> 0" of a count of rows is a step at 1
                    if (!steps.contains(value) && !(value == 0 && steps.contains(1.0))) {
                        problems.add(title + ": plots what " + rule.getKey() + " measures but has no threshold at "
                                + threshold.group(1) + " (steps " + steps + ")");
                    }
                }
            }
        }
        assertEquals(List.of(), problems);
        assertTrue(
                plotted.containsAll(Set.of(
                        "OutboxOldestPendingTooOld",
                        "OutboxPublishSlow",
                        "OutboxLostLeases",
                        "OutboxPublishFailureRate")),
                "the alerts with a threshold that panels plot: " + plotted);
    }

    @Test
    void prometheusParsesEveryQuery() throws Exception {
        Path promtool = Promtool.requireOrSkip();
        StringBuilder rules = new StringBuilder("groups:\n  - name: dashboard\n    rules:\n");
        for (JsonNode panel : panels) {
            for (JsonNode target : panel.path("targets")) {
                rules.append("      - record: dashboard:panel_")
                        .append(panel.path("id").asInt())
                        .append('_')
                        .append(target.path("refId").asText())
                        .append("\n        expr: ")
                        .append(Json.mapper().writeValueAsString(expr(target)))
                        .append('\n');
            }
        }
        Path file = Files.createTempFile("dashboard-queries-", ".yml");
        try {
            Files.writeString(file, rules);
            Promtool.Result checked = Promtool.checkRules(promtool, file);
            assertEquals(0, checked.exitCode(), checked.output() + "\n" + rules);
            assertTrue(checked.output().contains("SUCCESS"), checked.output());
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /** An expression with its windows and spacing left out: what it measures, over whatever interval. */
    private static String measure(String expr) {
        return expr.replaceAll("\\[[^]]*]", "[]").replaceAll("\\s+", "");
    }

    /** A query as Prometheus gets it from Grafana: the interval variables replaced by a duration. */
    static String expr(JsonNode target) {
        return target.path("expr")
                .asText()
                .replace("${__rate_interval}", "1m")
                .replace("$__rate_interval", "1m")
                .replace("$__interval", "1m")
                .replace("$__range", "1h");
    }
}
