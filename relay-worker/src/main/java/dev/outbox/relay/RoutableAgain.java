package dev.outbox.relay;

import dev.outbox.persistence.outbox.OutboxStore.Retried;
import dev.outbox.persistence.outbox.OutboxStore.Routes;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes rows parked {@code EXCHANGE_NOT_FOUND} or {@code UNROUTABLE} due again once the relay's
 * own declaration has made them routable: the exchange of a contract registered after its rows
 * were written, the queue of a consumer deployed after its producer. Without it such rows wait
 * for an operator, and every later event of their aggregates waits behind them.
 *
 * <p>Runs at each look of the registry watch. The first look after a declaration makes due every
 * such row the declared exchanges and bindings route, and takes the database's time as the
 * cutoff; later looks of the same declaration take only rows due before that cutoff, which
 * catches a row whose publish was under way while the relay declared and that parked just after,
 * while a row this class made due and that parks again (someone deleted the binding since) is
 * left for an operator until the next declaration. Those later looks stop one lease after the
 * first: a publish under way records its outcome within its lease, or not at all. One indexed
 * read per look when nothing matches.
 */
final class RoutableAgain {
    private static final Logger LOG = LoggerFactory.getLogger(RoutableAgain.class);

    private final Supplier<Optional<RelayTopology.Declared>> declared;
    private final BiFunction<Routes, Instant, Retried> retry;
    private final Duration lease;
    private final AtomicLong retried = new AtomicLong();
    private long round; // the watch thread only
    private Instant cutoff; // likewise
    private long firstLook; // likewise: System.nanoTime() of the declaration's first look

    /**
     * @param declared what the relay's last whole declaration made exist
     * @param retry makes the rows those routes route due, those due before the cutoff given (any
     *     when null), and answers the database's time
     * @param lease how long a claim holds its rows ({@code OUTBOX_RELAY_LEASE})
     */
    RoutableAgain(
            Supplier<Optional<RelayTopology.Declared>> declared,
            BiFunction<Routes, Instant, Retried> retry,
            Duration lease) {
        this.declared = declared;
        this.retry = retry;
        this.lease = lease;
    }

    /** Rows made due again since the relay started. */
    long retried() {
        return retried.get();
    }

    /** One look: makes the rows the last declaration routes due again. */
    void look() {
        Optional<RelayTopology.Declared> last = declared.get();
        if (last.isEmpty()) {
            return;
        }
        boolean fresh = last.get().round() != round;
        if (!fresh && System.nanoTime() - firstLook > lease.toNanos()) {
            return; // every publish under way at the declaration has recorded its outcome
        }
        long now = System.nanoTime();
        Retried done = retry.apply(last.get().routes(), fresh ? null : cutoff);
        if (fresh) {
            round = last.get().round();
            cutoff = done.at();
            firstLook = now;
        }
        if (!done.ids().isEmpty()) {
            retried.addAndGet(done.ids().size());
            LOG.info(
                    "{} row(s) parked EXCHANGE_NOT_FOUND or UNROUTABLE are due again: the relay declared what routes them",
                    done.ids().size());
        }
    }
}
