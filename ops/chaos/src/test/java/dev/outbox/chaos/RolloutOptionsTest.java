package dev.outbox.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RolloutOptionsTest {
    @Test
    void theFullRunIsEightRelaysOnAHundredThousandRowsWithHalfReplaced() {
        RolloutOptions o = RolloutOptions.parse(new String[0]);
        assertEquals(8, o.relays());
        assertEquals(100_000, o.rows());
        assertEquals(4, o.terminate());
        assertEquals(Duration.ofSeconds(30), o.grace());
        assertEquals("outbox_rollout", o.database());
        assertEquals("outbox-rollout", o.vhost());
    }

    @Test
    void quickIsTheSmokeRunAndOtherOptionsStillWin() {
        RolloutOptions o = RolloutOptions.parse(new String[] {"--quick"});
        assertEquals(4, o.relays());
        assertEquals(10_000, o.rows());
        assertEquals(2, o.terminate());
        RolloutOptions more = RolloutOptions.parse(new String[] {"--rows", "20000", "--quick", "--grace", "2m"});
        assertEquals(20_000, more.rows());
        assertEquals(Duration.ofMinutes(2), more.grace());
    }

    @Test
    void aRelayHoldsItsPoolLivenessAndListenOnceItRunsAndThreeOfThePoolBesideFlywayWhileItStarts() {
        assertEquals(12, RolloutOptions.parse(new String[0]).databaseBound(), "pool 10 + liveness + LISTEN");
        assertEquals(5, RolloutOptions.parse(new String[] {"--pool-size", "3"}).databaseBound(), "3 + 1 + 1");
        assertEquals(
                5,
                RolloutOptions.parse(new String[] {
                            "--pool-size", "3",
                            "--relay", "OUTBOX_RELAY_LIVENESS=false",
                            "--relay", "OUTBOX_RELAY_LISTEN=false"
                        })
                        .databaseBound(),
                "starting: 3 of the pool + Flyway's 2 beat the 3 it holds running");
        assertEquals(
                3,
                RolloutOptions.parse(new String[] {
                            "--pool-size", "1", "--relay", "OUTBOX_DB_MIGRATE=false",
                        })
                        .databaseBound(),
                "no Flyway: 1 of the pool + liveness + LISTEN");
        assertEquals(14, RolloutOptions.parse(new String[0]).sessionsPerRelay(), "Flyway's 2, then 12");
    }

    @Test
    void channelsAreOnePerPublisherAndOneForAMoment() {
        assertEquals(2, RolloutOptions.parse(new String[0]).channelBound());
        assertEquals(
                5,
                RolloutOptions.parse(new String[] {"--relay", "OUTBOX_RELAY_PUBLISHERS=4"})
                        .channelBound());
    }

    @Test
    void whatTheTestMustSetItselfOrCannotMeasureIsRefused() {
        for (String[] args : new String[][] {
            {"--relay", "OUTBOX_RELAY_ID=x"},
            {"--relay", "OUTBOX_DB_POOL_SIZE=3"},
            {"--relay", "OUTBOX_RELAY_MODE=cdc"},
            {"--relay", "NOT_OURS=1"},
            {"--relays", "4", "--terminate", "4"},
            {"--terminate", "0"},
            {"--rows", "10"},
            {"--terminate-at", "1"},
            {"--db", "Outbox-Rollout"},
            {"--shards", "2"}
        }) {
            assertThrows(IllegalArgumentException.class, () -> RolloutOptions.parse(args), String.join(" ", args));
        }
    }
}
