package dev.outbox.config;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A readiness answer: each dependency UP or DOWN with a reason. Ready only when every check is
 * UP. Reasons never carry credentials.
 */
public record HealthReport(boolean up, Map<String, String> checks) {
    public static HealthReport of(Map<String, String> checks) {
        boolean up = checks.values().stream().allMatch(v -> v.equals("UP") || v.startsWith("UP "));
        return new HealthReport(up, Map.copyOf(new LinkedHashMap<>(checks)));
    }

    public String toJson() {
        StringBuilder sb =
                new StringBuilder("{\"status\":\"").append(up ? "UP" : "DOWN").append("\",\"checks\":{");
        boolean first = true;
        for (Map.Entry<String, String> e : new java.util.TreeMap<>(checks).entrySet()) {
            sb.append(first ? "" : ",")
                    .append('"')
                    .append(escape(e.getKey()))
                    .append("\":\"")
                    .append(escape(e.getValue()))
                    .append('"');
            first = false;
        }
        return sb.append("}}").toString();
    }

    private static String escape(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", " ");
    }
}
