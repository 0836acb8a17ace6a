package dev.outbox.consumer.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;

import com.rabbitmq.client.AMQP;
import dev.outbox.consumer.InboundMessage;
import dev.outbox.consumer.runtime.DeliveryMutations.Wire;
import dev.outbox.consumer.runtime.WireContract.Rule;
import dev.outbox.consumer.runtime.WireContract.Violation;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The wire contract as the consumer checks it, without a broker: what the relay sends passes,
 * and every generated mutation of it is refused with the rule it breaks. The broker-backed run,
 * through the ledger process, is {@code LedgerContractFuzzIT}. The mutations are generated with a
 * new seed each run: a failure prints its shrunk mutation and the seed, which
 * {@code -DQT_SEED=<seed>} replays.
 */
class WireContractTest {
    private final WireContract orderEvents = WireContract.forQueue(RuntimeTestConsumer.QUEUE);

    private static Wire withHeaders(Wire w, Map<String, Object> headers) {
        return new Wire(
                w.exchange(),
                w.routingKey(),
                w.props().builder().headers(headers).build(),
                w.body());
    }

    private Rule refused(Wire w) {
        return assertThrows(Violation.class, () -> orderEvents.check(w.delivery()))
                .rule();
    }

    @Test
    void whatTheRelaySendsPassesAndReadsAsSent() throws Exception {
        UUID orderId = UUID.randomUUID();
        List<Wire> wires = DeliveryMutations.placedAndCaptured(orderId);
        for (Wire w : wires) {
            InboundMessage m = orderEvents.check(w.delivery());
            assertEquals(w.props().getMessageId(), m.messageId());
            assertEquals(w.props().getType(), m.messageType());
            assertEquals(orderId.toString(), m.aggregateId());
            assertEquals("order", m.aggregateType());
            assertEquals(1, m.messageVersion());
            assertArrayEquals(w.body(), m.body());
            assertEquals("tenant-a", m.headers().get("tenant_id"));
        }
        assertEquals(1L, orderEvents.check(wires.get(0).delivery()).aggregateVersion());
        assertEquals(2L, orderEvents.check(wires.get(1).delivery()).aggregateVersion());
    }

    @Test
    void aReplayStraightToTheQueueAndSpellingsOfTheSameEncodingPass() throws Exception {
        Wire w = DeliveryMutations.validCapture();
        orderEvents.check(new Wire("", RuntimeTestConsumer.QUEUE, w.props(), w.body()).delivery());
        for (String encoding : new String[] {null, "UTF-8", "utf-8"}) {
            orderEvents.check(new Wire(
                            w.exchange(),
                            w.routingKey(),
                            w.props().builder().contentEncoding(encoding).build(),
                            w.body())
                    .delivery());
        }
        orderEvents.check(new Wire(
                        w.exchange(),
                        w.routingKey(),
                        w.props()
                                .builder()
                                .contentType("application/json; charset=utf-8")
                                .build(),
                        w.body())
                .delivery());
    }

    /** Finding 3 of issue 21: each of these was booked by the ledger. */
    @Test
    void theDeliveriesTheLedgerUsedToBookAreRefusedWithTheirRule() {
        Wire w = DeliveryMutations.validCapture();
        assertEquals(Rule.HEADERS, refused(withHeaders(w, null)), "no headers table");
        Map<String, Object> without = new HashMap<>(w.props().getHeaders());
        without.remove("aggregate_version");
        assertEquals(Rule.AGGREGATE_VERSION, refused(withHeaders(w, without)), "without aggregate_version");
        Map<String, Object> nulled = new HashMap<>(w.props().getHeaders());
        nulled.put("aggregate_version", null);
        assertEquals(Rule.AGGREGATE_VERSION, refused(withHeaders(w, nulled)), "aggregate_version null");
        AMQP.BasicProperties gzip = w.props().builder().contentEncoding("gzip").build();
        assertEquals(
                Rule.CONTENT_ENCODING,
                refused(new Wire(w.exchange(), w.routingKey(), gzip, w.body())),
                "gzip with a plain body");
    }

    @Test
    void aTypeTheQueueIsNotBoundToIsUnknownToThisConsumer() {
        Wire w = DeliveryMutations.validCapture();
        Map<String, Object> h = new HashMap<>(w.props().getHeaders());
        h.put("message_type", "invoice.issued");
        Wire other = new Wire(
                w.exchange(),
                w.routingKey(),
                w.props().builder().type("invoice.issued").headers(h).build(),
                w.body());
        Violation v = assertThrows(Violation.class, () -> orderEvents.check(other.delivery()));
        assertEquals(Rule.UNKNOWN_TYPE, v.rule());
        assertTrue(v.reason().startsWith("contract/unknown-type: "), v.reason());
    }

    @Test
    void everyMutationOfAValidDeliveryIsRefusedWithTheRuleItBreaks() {
        Map<String, Integer> byRule = new TreeMap<>();
        qt().withExamples(3000)
                .forAll(DeliveryMutations.all(), DeliveryMutations.validCaptures())
                .checkAssert((mutation, valid) -> {
                    Wire mutated = mutation.applyTo(valid);
                    Violation v = assertThrows(
                            Violation.class,
                            () -> orderEvents.check(mutated.delivery()),
                            () -> mutation + " was accepted");
                    assertEquals(mutation.breaks(), v.rule(), () -> mutation + " was refused as " + v.reason());
                    assertTrue(v.reason().startsWith("contract/" + v.rule().id() + ": "), v.reason());
                    byRule.merge(v.rule().id(), 1, Integer::sum);
                });
        System.out.println("[WireContractTest] mutations refused, by rule: " + byRule);
    }
}
