package dev.outbox.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class FaultPlanTest {
    private static final Duration LEASE = Duration.ofSeconds(20);

    @Test
    void theSameSeedDrawsTheSameScheduleAndAnotherSeedAnother() {
        FaultPlan a = FaultPlan.draw(42, Duration.ofSeconds(45), Duration.ofMillis(2500), LEASE, true, true);
        assertEquals(a, FaultPlan.draw(42, Duration.ofSeconds(45), Duration.ofMillis(2500), LEASE, true, true));
        assertNotEquals(a, FaultPlan.draw(43, Duration.ofSeconds(45), Duration.ofMillis(2500), LEASE, true, true));
    }

    @Test
    void aShortRunCoversEveryKindAndEveryFaultEndsInsideTheWindow() {
        for (long seed = 0; seed < 200; seed++) {
            Duration window = Duration.ofSeconds(40); // --short
            FaultPlan plan = FaultPlan.draw(seed, window, Duration.ofMillis(2500), LEASE, true, true);
            Set<FaultPlan.Kind> kinds = plan.faults().stream()
                    .map(FaultPlan.Fault::kind)
                    .collect(Collectors.toCollection(() -> EnumSet.noneOf(FaultPlan.Kind.class)));
            assertEquals(
                    EnumSet.complementOf(EnumSet.of(
                            FaultPlan.Kind.KILL_NODE, FaultPlan.Kind.PARTITION_DB, FaultPlan.Kind.PARTITION_BROKER)),
                    kinds,
                    "seed " + seed + ": every kind but the cluster's and the partitions");
            for (FaultPlan.Fault f : plan.faults()) {
                assertTrue(f.at().plus(f.length()).compareTo(window) < 0, "seed " + seed + ": " + f);
            }
            assertTrue(
                    plan.faults().stream()
                            .anyMatch(f -> f.kind() == FaultPlan.Kind.PAUSE_RELAY
                                    && f.length().compareTo(LEASE) > 0),
                    "a pause outlasts the lease, seed " + seed);
        }
    }

    @Test
    void brokerFaultsOnlyWhereAllowedAndPossible() {
        FaultPlan noRestart = FaultPlan.draw(7, Duration.ofMinutes(5), Duration.ofSeconds(2), LEASE, false, true);
        assertFalse(noRestart.faults().stream().anyMatch(f -> f.kind() == FaultPlan.Kind.BROKER_RESTART));
        FaultPlan noCtl = FaultPlan.draw(7, Duration.ofMinutes(5), Duration.ofSeconds(2), LEASE, true, false);
        assertFalse(noCtl.faults().stream()
                .anyMatch(
                        f -> f.kind() == FaultPlan.Kind.BROKER_RESTART || f.kind() == FaultPlan.Kind.CLOSE_CONNECTION));
    }

    @Test
    void onAClusterNodeKillsReplaceTheProxyAndTheMachinesBrokerFaults() {
        for (long seed = 0; seed < 200; seed++) {
            Duration window = Duration.ofSeconds(40);
            // as ChaosMain draws it on a cluster: no --broker-restart, no rabbitmqctl of the machine's broker
            FaultPlan plan = FaultPlan.draw(seed, window, Duration.ofMillis(2500), LEASE, false, false, true, false);
            Set<FaultPlan.Kind> kinds = plan.faults().stream()
                    .map(FaultPlan.Fault::kind)
                    .collect(Collectors.toCollection(() -> EnumSet.noneOf(FaultPlan.Kind.class)));
            assertEquals(
                    EnumSet.of(
                            FaultPlan.Kind.KILL_RELAY,
                            FaultPlan.Kind.KILL_CONSUMER,
                            FaultPlan.Kind.KILL_API,
                            FaultPlan.Kind.PAUSE_RELAY,
                            FaultPlan.Kind.PG_TERMINATE,
                            FaultPlan.Kind.KILL_NODE),
                    kinds,
                    "seed " + seed);
            for (FaultPlan.Fault f : plan.faults()) {
                assertTrue(f.at().plus(f.length()).compareTo(window) < 0, "seed " + seed + ": " + f);
                if (f.kind() == FaultPlan.Kind.KILL_NODE) {
                    assertTrue(f.target() >= 0 && f.target() <= 2, "one of three nodes: " + f);
                }
            }
        }
    }

    @Test
    void partitionsJoinOnlyWhenAskedAndLeaveOldSeedsAsTheyWere() {
        for (long seed = 0; seed < 200; seed++) {
            Duration window = Duration.ofSeconds(40);
            FaultPlan without = FaultPlan.draw(seed, window, Duration.ofMillis(2500), LEASE, true, true);
            assertEquals(
                    without,
                    FaultPlan.draw(seed, window, Duration.ofMillis(2500), LEASE, true, true, false, false),
                    "seed " + seed + " replays as before");
            assertFalse(without.faults().stream()
                    .anyMatch(f ->
                            f.kind() == FaultPlan.Kind.PARTITION_DB || f.kind() == FaultPlan.Kind.PARTITION_BROKER));
            // a short run: both partitions early in the first round, each inside the window
            FaultPlan with = FaultPlan.draw(seed, window, Duration.ofMillis(2500), LEASE, true, true, false, true);
            for (FaultPlan.Kind k : List.of(FaultPlan.Kind.PARTITION_DB, FaultPlan.Kind.PARTITION_BROKER)) {
                assertTrue(with.faults().stream().anyMatch(f -> f.kind() == k), "seed " + seed + " has " + k);
            }
            for (FaultPlan.Fault f : with.faults()) {
                assertTrue(f.at().plus(f.length()).compareTo(window) < 0, "seed " + seed + ": " + f);
                if (f.kind() == FaultPlan.Kind.PARTITION_DB || f.kind() == FaultPlan.Kind.PARTITION_BROKER) {
                    assertTrue(f.target() >= 0 && f.target() <= 5, "one of six processes: " + f);
                    assertTrue(f.length().toMillis() >= 1_000, "a partition, not a blip of the scheduler: " + f);
                }
            }
        }
        // CI's run (.ci/run: --short --seed 2 --broker-restart --partitions) sees every kind of this machine
        Set<FaultPlan.Kind> ci = FaultPlan.draw(
                        2, Duration.ofSeconds(40), Duration.ofMillis(2500), LEASE, true, true, false, true)
                .faults()
                .stream()
                .map(FaultPlan.Fault::kind)
                .collect(Collectors.toCollection(() -> EnumSet.noneOf(FaultPlan.Kind.class)));
        assertEquals(EnumSet.complementOf(EnumSet.of(FaultPlan.Kind.KILL_NODE)), ci);
    }
}
