package dev.outbox.relay;

import dev.outbox.persistence.outbox.OutboxStore.Retried;
import dev.outbox.persistence.outbox.OutboxStore.Routes;
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
 * cutoff; later looks of the same declaration take only rows due before that cutoff. That catches
 * a row whose publish was under way while the relay declared and that parked after the first look
 * (however late: the fence that lets it park does not look at the lease's age), while a row this
 * class made due got {@code now()} and is not taken again, should it park once more (someone
 * deleted the binding since), until the next declaration. Each look is one read of the parked
 * rows with those two codes when nothing matches.
 *
 * <p>The rows parked before this relay started count too: the first declaration of a relay of
 * this release makes due every such row its topology routes, those an operator left parked on
 * purpose included (cancel them instead).
 */
final class RoutableAgain {
    private static final Logger LOG = LoggerFactory.getLogger(RoutableAgain.class);

    private final Supplier<Optional<RelayTopology.Declared>> declared;
    private final BiFunction<Routes, Instant, Retried> retry;
    private final AtomicLong retried = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private long round; // the watch thread only
    private Instant cutoff; // likewise
    private boolean failing; // likewise

    /**
     * @param declared what the relay's last whole declaration made exist
     * @param retry makes the rows those routes route due, those due before the cutoff given (any
     *     when null), and answers the database's time
     */
    RoutableAgain(Supplier<Optional<RelayTopology.Declared>> declared, BiFunction<Routes, Instant, Retried> retry) {
        this.declared = declared;
        this.retry = retry;
    }

    /** Rows made due again since the relay started. */
    long retried() {
        return retried.get();
    }

    /** Looks that failed (the database unreachable, a statement timeout); the next look tries again. */
    long failures() {
        return failures.get();
    }

    /**
     * One look: makes the rows the last declaration routes due again. A failure is logged (once
     * until a look succeeds) and counted, and stops nothing else the watch does at this look.
     */
    void look() {
        Optional<RelayTopology.Declared> last = declared.get();
        if (last.isEmpty()) {
            return;
        }
        boolean fresh = last.get().round() != round;
        Retried done;
        try {
            done = retry.apply(last.get().routes(), fresh ? null : cutoff);
        } catch (RuntimeException e) {
            failures.incrementAndGet();
            if (!failing) {
                failing = true;
                LOG.warn(
                        "cannot make rows parked EXCHANGE_NOT_FOUND or UNROUTABLE due again now ({}); trying at the next look",
                        e.toString());
            }
            return;
        }
        failing = false;
        if (fresh) {
            round = last.get().round();
            cutoff = done.at();
        }
        if (!done.ids().isEmpty()) {
            retried.addAndGet(done.ids().size());
            LOG.info(
                    "{} row(s) parked EXCHANGE_NOT_FOUND or UNROUTABLE are due again: the relay declared what routes them",
                    done.ids().size());
        }
    }
}
