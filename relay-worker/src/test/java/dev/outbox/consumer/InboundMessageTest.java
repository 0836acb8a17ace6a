package dev.outbox.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.Envelope;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How a delivery's count is read: a quorum queue's header when there is one, else the redelivery flag. */
class InboundMessageTest {

    private static InboundMessage parse(Map<String, Object> headers, boolean redelivered) throws Exception {
        AMQP.BasicProperties props = new AMQP.BasicProperties.Builder()
                .messageId("m-1")
                .type("order.created")
                .headers(headers)
                .build();
        return InboundMessage.parse(
                new Delivery(new Envelope(1, redelivered, "orders.events", "order.created"), props, "{}".getBytes()));
    }

    @Test
    void aQuorumQueuesDeliveryCountIsRead() throws Exception {
        assertEquals(0, parse(Map.of("x-delivery-count", 0L), false).deliveryCount());
        assertEquals(7, parse(Map.of("x-delivery-count", 7L), true).deliveryCount());
        assertEquals(3, parse(Map.of("x-delivery-count", 3), true).deliveryCount(), "an int header too");
    }

    @Test
    void aClassicQueueKeepsNoCountSoTheRedeliveryFlagStandsForOne() throws Exception {
        assertEquals(0, parse(Map.of(), false).deliveryCount());
        assertEquals(1, parse(Map.of(), true).deliveryCount());
        assertEquals(1, parse(Map.of("x-delivery-count", "not a number"), true).deliveryCount());
    }
}
