package dev.outbox.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ClaimGateTest {

    @Test
    void openUntilClosedAndSaysWhy() throws Exception {
        ClaimGate gate = new ClaimGate();
        assertTrue(gate.isOpen());
        assertNull(gate.closedBecause());
        assertTrue(gate.awaitOpen(Duration.ZERO));
        gate.close("lost the liveness lock");
        assertFalse(gate.isOpen());
        assertEquals("lost the liveness lock", gate.closedBecause());
        assertFalse(gate.awaitOpen(Duration.ofMillis(20)), "a closed gate makes a lane wait, then look again");
    }

    @Test
    void openingWakesAWaitingLaneAtOnce() throws Exception {
        ClaimGate gate = new ClaimGate();
        gate.close("waiting for the liveness lock");
        CountDownLatch waiting = new CountDownLatch(1);
        CompletableFuture<Boolean> lane = CompletableFuture.supplyAsync(() -> {
            waiting.countDown();
            try {
                return gate.awaitOpen(Duration.ofMinutes(1));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
        assertTrue(waiting.await(10, TimeUnit.SECONDS));
        gate.open();
        // well inside the minute the lane would otherwise wait
        assertTrue(lane.get(10, TimeUnit.SECONDS));
        assertTrue(gate.isOpen());
    }

    @Test
    void aPauseForSuspectsWaitsForTheLaneInsideAClaimAndLetsNoNewClaimIn() throws Exception {
        ClaimGate gate = new ClaimGate();
        assertTrue(gate.tryEnter(), "a lane starts a claim");
        CompletableFuture<Boolean> pausing = CompletableFuture.supplyAsync(() -> {
            try {
                return gate.pause("publishing suspects one at a time", Duration.ofMinutes(1));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
        // the pause is in force at once, though it still waits for the lane inside
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !gate.isOpen());
        assertFalse(pausing.isDone(), "a lane is still inside its claim");
        assertFalse(gate.tryEnter(), "no new claim while paused");
        assertTrue(gate.livenessOpen(), "a pause is not a lost lock");
        assertEquals("publishing suspects one at a time", gate.closedBecause());
        gate.exit();
        assertTrue(pausing.get(10, TimeUnit.SECONDS), "the lane left its claim: the pause holds with nobody inside");
        gate.resume();
        assertTrue(gate.isOpen());
        assertTrue(gate.tryEnter());
        gate.exit();
    }

    @Test
    void aPauseThatOutlastsItsTimeoutSaysSoAndALostLockOutlastsAResume() throws Exception {
        ClaimGate gate = new ClaimGate();
        assertTrue(gate.tryEnter());
        assertFalse(gate.pause("suspects", Duration.ofMillis(20)), "the lane never left its claim");
        gate.close("lost the liveness lock");
        gate.resume();
        assertFalse(gate.isOpen(), "resuming after suspects does not open a gate that liveness closed");
        assertEquals("lost the liveness lock", gate.closedBecause());
        gate.exit();
    }
}
