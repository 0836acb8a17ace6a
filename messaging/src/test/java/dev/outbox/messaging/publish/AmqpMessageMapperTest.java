package dev.outbox.messaging.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.rabbitmq.client.AMQP;
import dev.outbox.kernel.outbox.ErrorCode;
import dev.outbox.kernel.outbox.OutboxRecord;
import dev.outbox.kernel.outbox.OutboxStatus;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class AmqpMessageMapperTest {
    private static final UUID ID = UUID.fromString("0192f3a4-0000-7000-8000-000000000099");
    private static final String ORDER_ID = "0192f3a4-0000-7000-8000-000000000001";
    private static final String CAPTURED = "{\"amount\": \"42.50\", \"orderId\": \"" + ORDER_ID + "\", \"currency\":"
            + " \"EUR\", \"paymentId\": \"0192f3a4-0000-7000-8000-0000000000aa\", \"capturedAt\":"
            + " \"2026-11-30T09:14:02.310Z\"}";

    private static OutboxRecord row(String type, String payload, String headers, String tenant, String causation) {
        return new OutboxRecord(
                ID,
                "order",
                ORDER_ID,
                2L,
                type,
                1,
                "orders.events",
                type,
                payload,
                headers,
                OutboxStatus.IN_PROGRESS.name(),
                1,
                Instant.now(),
                null,
                null,
                Instant.parse("2026-11-30T09:14:02Z"),
                Instant.now(),
                "relay",
                7L,
                null,
                "corr-1",
                causation,
                null,
                tenant);
    }

    private static OutboundMessage ready(OutboxRecord r) {
        return assertInstanceOf(AmqpMessageMapper.Ready.class, AmqpMessageMapper.map(r))
                .message();
    }

    @Test
    void mapsARowToTheWireContract() {
        OutboundMessage m = ready(row(
                "payment.captured",
                CAPTURED,
                "{\"traceparent\":\"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\"}",
                "t-1",
                "c-9"));
        AMQP.BasicProperties p = m.properties();
        assertEquals(ID.toString(), p.getMessageId());
        assertEquals(2, p.getDeliveryMode());
        assertEquals("application/json", p.getContentType());
        assertEquals("payment.captured", p.getType());
        assertEquals("corr-1", p.getCorrelationId());
        assertEquals(Instant.parse("2026-11-30T09:14:02Z"), p.getTimestamp().toInstant());
        assertEquals("payment.captured", p.getHeaders().get("message_type"));
        assertEquals(1, p.getHeaders().get("message_version"));
        assertEquals("order", p.getHeaders().get("aggregate_type"));
        assertEquals(ORDER_ID, p.getHeaders().get("aggregate_id"));
        assertEquals(2L, p.getHeaders().get("aggregate_version"));
        assertEquals("t-1", p.getHeaders().get("tenant_id"));
        assertEquals("c-9", p.getHeaders().get("causation_id"));
        assertEquals(
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                p.getHeaders().get("traceparent"));
        assertEquals("orders.events", m.exchange());
        assertEquals("payment.captured", m.routingKey());
        assertEquals(CAPTURED, new String(m.body(), StandardCharsets.UTF_8), "the snapshot, byte for byte");
    }

    @Test
    void optionalHeadersAreLeftOutWhenUnset() {
        OutboundMessage m = ready(row("payment.captured", CAPTURED, "{}", null, null));
        assertNull(m.properties().getHeaders().get("tenant_id"));
        assertNull(m.properties().getHeaders().get("causation_id"));
        assertNull(m.properties().getHeaders().get("traceparent"));
    }

    @Test
    void rowHeadersCannotOverrideTheContractHeaders() {
        OutboundMessage m = ready(row(
                "payment.captured",
                CAPTURED,
                "{\"message_type\":\"evil\",\"aggregate_id\":\"x\",\"x-source\":\"import\"}",
                null,
                null));
        assertEquals("payment.captured", m.properties().getHeaders().get("message_type"));
        assertEquals(ORDER_ID, m.properties().getHeaders().get("aggregate_id"));
        assertEquals("import", m.properties().getHeaders().get("x-source"));
    }

    @Test
    void aPayloadThatIsNotJsonIsInvalid() {
        AmqpMessageMapper.Invalid i = assertInstanceOf(
                AmqpMessageMapper.Invalid.class,
                AmqpMessageMapper.map(row("payment.captured", "{not json", "{}", null, null)));
        assertTrue(i.reason().startsWith("payload is not valid JSON"), i.reason());
        assertEquals(ErrorCode.PAYLOAD_INVALID, i.code());
    }

    @Test
    void aPayloadThatBreaksItsContractIsInvalid() {
        AmqpMessageMapper.Invalid i = assertInstanceOf(
                AmqpMessageMapper.Invalid.class,
                AmqpMessageMapper.map(row("payment.captured", "{\"orderId\":\"" + ORDER_ID + "\"}", "{}", null, null)));
        assertTrue(i.reason().contains("required property 'paymentId' not found"), i.reason());
    }

    @Test
    void nestedHeaderValuesAreInvalid() {
        assertInstanceOf(
                AmqpMessageMapper.Invalid.class,
                AmqpMessageMapper.map(row("payment.captured", CAPTURED, "{\"a\":{\"b\":1}}", null, null)));
    }
}
