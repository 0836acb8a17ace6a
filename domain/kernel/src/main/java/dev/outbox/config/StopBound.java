package dev.outbox.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The longest a process may take to stop after SIGTERM: each wait its stop path can make, in the
 * order it makes them, at its bound. A supervisor that kills sooner (Kubernetes after
 * {@code terminationGracePeriodSeconds}, counted from before any {@code preStop} sleep) cuts the
 * drain short: for the relay, rows it published may stay leased until another relay takes them
 * back, and be published again. Each process logs its bound at start.
 *
 * @param process what stops, for the log line
 * @param steps the waits, in the order the stop makes them
 */
public record StopBound(String process, List<Step> steps) {

    /** One wait of a stop path and the longest it lasts. */
    public record Step(String what, Duration atMost) {}

    public StopBound {
        steps = List.copyOf(steps);
    }

    public static StopBound of(String process) {
        return new StopBound(process, List.of());
    }

    /** This bound, and the export of the last spans at the very end when the process traces. */
    public StopBound thenSpans(TracingConfig tracing) {
        return tracing.enabled() ? then("spans export", dev.outbox.kernel.tracing.Tracing.CLOSE_WAIT) : this;
    }

    /** This bound with one more wait after the others. */
    public StopBound then(String what, Duration atMost) {
        List<Step> more = new ArrayList<>(steps);
        more.add(new Step(what, atMost));
        return new StopBound(process, more);
    }

    public Duration total() {
        return steps.stream().map(Step::atMost).reduce(Duration.ZERO, Duration::plus);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(process)
                .append(" stops within ")
                .append(Settings.format(total()))
                .append(" of SIGTERM at most (a grace period must be longer):");
        String sep = " ";
        for (Step s : steps) {
            sb.append(sep).append(s.what()).append(' ').append(Settings.format(s.atMost()));
            sep = " + ";
        }
        return sb.toString();
    }
}
