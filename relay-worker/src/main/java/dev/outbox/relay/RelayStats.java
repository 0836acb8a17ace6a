package dev.outbox.relay;

import dev.outbox.persistence.outbox.ErrorCode;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/** Counters of what this relay did since it started; read by logs, health and metrics. */
public final class RelayStats {
    final LongAdder claimed = new LongAdder();
    final LongAdder claims = new LongAdder();
    final LongAdder published = new LongAdder();
    final LongAdder released = new LongAdder();
    final LongAdder lostLeases = new LongAdder();
    final LongAdder staleLeasesRecovered = new LongAdder();
    final LongAdder confirmNanosTotal = new LongAdder();
    final AtomicLong confirmNanosMax = new AtomicLong();
    private final Map<ErrorCode, LongAdder> failures = new EnumMap<>(ErrorCode.class);

    public RelayStats() {
        for (ErrorCode c : ErrorCode.values()) {
            failures.put(c, new LongAdder());
        }
    }

    void failed(ErrorCode code) {
        failures.get(code).increment();
    }

    void confirmed(long nanos) {
        published.increment();
        confirmNanosTotal.add(nanos);
        confirmNanosMax.accumulateAndGet(nanos, Math::max);
    }

    public long claimed() {
        return claimed.sum();
    }

    public long published() {
        return published.sum();
    }

    public long released() {
        return released.sum();
    }

    public long lostLeases() {
        return lostLeases.sum();
    }

    public long staleLeasesRecovered() {
        return staleLeasesRecovered.sum();
    }

    public long failures(ErrorCode code) {
        return failures.get(code).sum();
    }

    public Map<ErrorCode, Long> failuresByCode() {
        Map<ErrorCode, Long> out = new EnumMap<>(ErrorCode.class);
        failures.forEach((k, v) -> {
            long n = v.sum();
            if (n > 0) {
                out.put(k, n);
            }
        });
        return out;
    }

    @Override
    public String toString() {
        return "claimed=" + claimed() + " published=" + published() + " released=" + released() + " failures="
                + failuresByCode() + " lostLeases=" + lostLeases() + " staleRecovered=" + staleLeasesRecovered();
    }
}
