package dev.outbox.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The alert rules in ops/alerts parse, say what they need (an expression, a duration, a severity,
 * a summary, a runbook link that exists), and only use metrics and labels that the running
 * processes really export ({@link ExportedMetrics}): a renamed metric must break this test, not the
 * pager. Where promtool is installed, Prometheus's own parser accepts the file too.
 */
class AlertRulesIT {
    static final String RULES = "ops/alerts/outbox-rules.yml";
    private static final Set<String> REQUIRED =
            Set.of("OutboxOldestPendingTooOld", "OutboxParkedMessages", "OutboxRelayDown", "OutboxLostLeases");

    @Test
    void everyRuleIsWellFormedAndUsesMetricsTheProcessesExport() throws Exception {
        Path root = RepoFiles.root();
        Set<String> anchors = anchors(Files.readString(root.resolve("ops/RUNBOOK.md")));
        Map<String, Set<String>> exported = ExportedMetrics.labelsByName();
        Set<String> alerts = new HashSet<>();
        List<String> problems = new ArrayList<>();
        for (Map<String, Object> rule : rules(root)) {
            String name = (String) rule.get("alert");
            alerts.add(name);
            if (!String.valueOf(rule.get("for")).matches("\\d+[smh]")) {
                problems.add(name + ": 'for' must be a duration");
            }
            Map<?, ?> labels = (Map<?, ?>) rule.get("labels");
            if (labels == null || !Set.of("page", "ticket").contains(labels.get("severity"))) {
                problems.add(name + ": severity must be page or ticket");
            }
            Map<?, ?> annotations = (Map<?, ?>) rule.get("annotations");
            if (annotations == null || annotations.get("summary") == null) {
                problems.add(name + ": needs a summary");
                continue;
            }
            String link = String.valueOf(annotations.get("runbook"));
            if (!link.startsWith("ops/RUNBOOK.md#") || !anchors.contains(link.substring(link.indexOf('#') + 1))) {
                problems.add(name + ": runbook link " + link + " does not name a RUNBOOK.md heading");
            }
            try {
                PromQl.analyse(String.valueOf(rule.get("expr")), exported)
                        .problems()
                        .forEach(p -> problems.add(name + ": " + p));
            } catch (IllegalArgumentException e) {
                problems.add(name + ": " + e.getMessage());
            }
        }
        assertEquals(List.of(), problems);
        assertTrue(alerts.containsAll(REQUIRED), "required alerts " + REQUIRED + " in " + alerts);
    }

    @Test
    void promtoolAcceptsTheRules() throws Exception {
        Path promtool = Promtool.requireOrSkip();
        Promtool.Result checked = Promtool.checkRules(promtool, RepoFiles.root().resolve(RULES));
        assertEquals(0, checked.exitCode(), checked.output());
    }

    /** Every rule of every group, as the YAML has it. */
    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> rules(Path root) throws Exception {
        Map<String, Object> doc = new Yaml().load(Files.readString(root.resolve(RULES)));
        List<Map<String, Object>> groups = (List<Map<String, Object>>) doc.get("groups");
        assertNotNull(groups);
        List<Map<String, Object>> out = new ArrayList<>();
        for (Map<String, Object> group : groups) {
            out.addAll((List<Map<String, Object>>) group.get("rules"));
        }
        return out;
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
}
