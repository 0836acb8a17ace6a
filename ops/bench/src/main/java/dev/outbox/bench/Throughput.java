package dev.outbox.bench;

/**
 * One throughput measurement: {@code rows} moved in {@code seconds}, under {@code config}.
 *
 * @param key short name used in the table and the chart (A, B, N, R1, ...)
 */
record Throughput(String key, String what, String config, long rows, double seconds) {
    double perSecond() {
        return rows / seconds;
    }
}
