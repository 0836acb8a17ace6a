package dev.outbox.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class StopBoundTest {
    @Test
    void theBoundIsEveryWaitAddedUpInItsOrder() {
        StopBound bound = StopBound.of("relay r-1")
                .then("channels", Duration.ofSeconds(10))
                .then("outcomes", Duration.ofSeconds(30))
                .then("pool", Duration.ofMillis(6_500));

        assertEquals(Duration.ofMillis(46_500), bound.total());
        assertEquals(
                "relay r-1 stops within 46500ms of SIGTERM at most (a grace period must be longer):"
                        + " channels 10s + outcomes 30s + pool 6500ms",
                bound.toString());
    }

    @Test
    void addingAWaitLeavesTheBoundItWasAddedToAsItWas() {
        StopBound api = StopBound.of("API").then("requests in flight", Duration.ofSeconds(15));

        api.then("pool", Duration.ofSeconds(6));

        assertEquals(Duration.ofSeconds(15), api.total());
    }
}
