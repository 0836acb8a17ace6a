package dev.outbox.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.config.Settings;
import dev.outbox.messaging.ExponentialBackoff;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LivenessConfigTest {

    /**
     * The claim gate stays shut until the lock is taken again, so after a database outage the
     * holder must try again about every check, not back off towards the broker's 30 s.
     */
    @Test
    void afterAnyNumberOfFailuresTheLockIsTriedAgainWithinACheckInterval() {
        for (String interval : new String[] {"50ms", "2s", "1m"}) {
            LivenessConfig config = LivenessConfig.from(
                    new Settings(Map.of("OUTBOX_RELAY_LIVENESS_CHECK_INTERVAL", interval)), Duration.ofSeconds(5));
            ExponentialBackoff backoff = config.reconnectBackoff();
            for (int failures = 0; failures < 64; failures++) {
                Duration wait = backoff.ceiling(failures);
                assertTrue(
                        wait.compareTo(config.checkInterval()) <= 0,
                        "check interval " + interval + ": waits " + wait + " after " + failures + " failures");
            }
            // and it does not hammer a database that is down: the first wait is not below 200 ms unless the checks are
            assertEquals(Duration.ofMillis(Math.min(200, config.checkInterval().toMillis())), backoff.ceiling(0));
        }
    }
}
