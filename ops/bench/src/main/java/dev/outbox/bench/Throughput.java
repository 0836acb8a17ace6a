package dev.outbox.bench;

import java.util.Map;

/**
 * One throughput measurement: {@code rows} moved in {@code seconds}, under {@code config}.
 *
 * @param key short name used in the table and the chart (A, B, N, R1, ...)
 * @param cpuPerRow CPU microseconds per row by part of the machine ({@link CpuMeter})
 */
record Throughput(String key, String what, String config, long rows, double seconds, Map<String, Double> cpuPerRow) {
    double perSecond() {
        return rows / seconds;
    }

    /** CPU microseconds per row, all parts together. */
    double cpuTotal() {
        return cpuPerRow.values().stream()
                .filter(v -> !v.isNaN())
                .mapToDouble(Double::doubleValue)
                .sum();
    }
}
