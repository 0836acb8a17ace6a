package dev.outbox.relay;

import dev.outbox.kernel.outbox.OutboxRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A claim whose statement returned its rows and whose commit then failed leaves leases that may
 * exist: the commit may have been written and only its answer lost (the connection cut at that
 * moment). Nothing of those rows was sent, so they go back to the recorder as {@link
 * OutcomeRecorder.Disowned}, given back uncounted and fenced by token (a no-op for a lease that
 * was never written). Without this the relay, alive and holding its liveness lock, would keep them
 * from every peer until the lease ran out: no peer's sweep takes rows of a live relay.
 */
final class UnansweredClaims {
    private UnansweredClaims() {}

    /**
     * Runs {@code claim}, which hands the rows it leased to the callback it is given before it
     * commits (as {@code OutboxStore.claim} does); if the claim then throws, those rows are disowned
     * through {@code recorder} and the exception goes on.
     */
    static <T> T claim(OutcomeRecorder recorder, Function<Consumer<List<OutboxRecord>>, T> claim) {
        List<OutboxRecord> leased = new ArrayList<>();
        try {
            return claim.apply(leased::addAll);
        } catch (RuntimeException e) {
            for (OutboxRecord row : leased) {
                recorder.add(new OutcomeRecorder.Disowned(row));
            }
            throw e;
        }
    }
}
