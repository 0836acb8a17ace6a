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
}
