package dev.outbox.sample.shipments;

import dev.outbox.testkit.arch.FrontDoorOnly;
import org.junit.jupiter.api.Test;

/** A consumer of its own: of the outbox it uses the front door, nothing else. */
class ShipmentsArchitectureTest {
    @Test
    void theShipmentsConsumerUsesOnlyTheFrontDoor() {
        FrontDoorOnly.check("dev.outbox.sample.shipments");
    }
}
