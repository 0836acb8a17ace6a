package dev.outbox.bench;

import java.util.Arrays;

/** Exact percentiles of recorded samples (nearest rank), in milliseconds. */
record Percentiles(int count, double p50, double p99, double max) {

    static Percentiles ofNanos(long[] samples) {
        if (samples.length == 0) {
            return new Percentiles(0, Double.NaN, Double.NaN, Double.NaN);
        }
        long[] sorted = samples.clone();
        Arrays.sort(sorted);
        return new Percentiles(
                sorted.length, ms(rank(sorted, 0.50)), ms(rank(sorted, 0.99)), ms(sorted[sorted.length - 1]));
    }

    private static long rank(long[] sorted, double q) {
        int i = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }

    private static double ms(long nanos) {
        return nanos / 1_000_000.0;
    }
}
