package dev.outbox.consumer.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.outbox.consumer.InboundMessage;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How a delivery's count is read: a quorum queue's header when there is one, else the redelivery flag. */
class InboundMessageTest {

    private static InboundMessage message(Map<String, Object> headers, boolean redelivered) {
        return new InboundMessage(
                "0192f3a0-7c1e-7000-8000-00000000000a",
                "order.created",
                1,
                "order",
                "0192f3a0-7c1e-7000-8000-00000000000b",
                1L,
                null,
                headers,
                "{}".getBytes(),
                redelivered);
    }

    @Test
    void aQuorumQueuesDeliveryCountIsRead() {
        assertEquals(0, message(Map.of("x-delivery-count", 0L), false).deliveryCount());
        assertEquals(7, message(Map.of("x-delivery-count", 7L), true).deliveryCount());
        assertEquals(3, message(Map.of("x-delivery-count", 3), true).deliveryCount(), "an int header too");
    }

    @Test
    void aClassicQueueKeepsNoCountSoTheRedeliveryFlagStandsForOne() {
        assertEquals(0, message(Map.of(), false).deliveryCount());
        assertEquals(1, message(Map.of(), true).deliveryCount());
        assertEquals(
                1, message(Map.of("x-delivery-count", "not a number"), true).deliveryCount());
    }
}
