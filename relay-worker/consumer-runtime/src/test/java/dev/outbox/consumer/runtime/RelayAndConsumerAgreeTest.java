package dev.outbox.consumer.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.rabbitmq.client.Delivery;
import dev.outbox.kernel.contract.MessageContract;
import dev.outbox.kernel.contract.MessageContracts;
import dev.outbox.kernel.outbox.ErrorCode;
import dev.outbox.kernel.outbox.OutboxRecord;
import dev.outbox.kernel.outbox.OutboxStatus;
import dev.outbox.messaging.publish.AmqpMessageMapper;
import dev.outbox.messaging.publish.OutboundMessage;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The relay and the consumers judge a message by the same contract: whatever row the relay's
 * mapper turns into a message (and so would publish and mark {@code PUBLISHED}), every consumer's
 * wire-contract check accepts. A row the consumers would dead-letter must be parked by the relay
 * instead, with its reason, where an operator sees it. Rows are generated from each contract's
 * own examples with their envelope varied: aggregate type, version, exchange, routing key,
 * headers, correlation id, tenant.
 */
class RelayAndConsumerAgreeTest {
    private static final MessageContracts CONTRACTS = MessageContracts.onClasspath();
    private static final WireContract EVERY_CONSUMER = WireContract.serving(CONTRACTS);

    record Envelope(
            MessageContract contract,
            JsonNode example,
            String aggregateType,
            Long aggregateVersion,
            String exchange,
            String routingKey,
            String headers,
            String correlationId,
            String tenantId) {}

    @Provide
    Arbitrary<Envelope> envelopes() {
        Arbitrary<MessageContract> contract =
                Arbitraries.of(CONTRACTS.all()).filter(c -> !c.examples().isEmpty());
        return contract.flatMap(c -> Combinators.combine(
                        Arbitraries.of(c.examples()),
                        Arbitraries.of(c.aggregateType(), "other", ""),
                        Arbitraries.of(null, 1L, 2L, Long.MAX_VALUE),
                        Arbitraries.of(c.exchange(), "amq.topic"),
                        Arbitraries.of(c.routingKey(), c.routingKey() + ".x", "other"),
                        Arbitraries.of(
                                "{}",
                                "{\"x-source\":\"import\"}",
                                "{\"traceparent\":\"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\"}",
                                "{\"traceparent\":\"not-a-traceparent\"}",
                                "{\"aggregate_version\":\"7\"}",
                                "{\"n\":1.5}"),
                        Arbitraries.of(null, "corr-1", ""),
                        Arbitraries.of(null, "tenant-a"))
                .as((example, type, version, exchange, key, headers, corr, tenant) ->
                        new Envelope(c, example, type, version, exchange, key, headers, corr, tenant)));
    }

    @Property(tries = 500)
    void everyMessageTheRelayWouldSendIsOneEveryConsumerAccepts(@ForAll("envelopes") Envelope e) {
        String aggregateId =
                e.example().path(e.contract().aggregateIdProperty()).asText();
        OutboxRecord row = new OutboxRecord(
                UUID.randomUUID(),
                e.aggregateType(),
                aggregateId,
                e.aggregateVersion(),
                e.contract().messageType(),
                e.contract().version(),
                e.exchange(),
                e.routingKey(),
                e.example().toString(),
                e.headers(),
                OutboxStatus.IN_PROGRESS,
                1,
                Instant.now(),
                null,
                null,
                Instant.now(),
                Instant.now(),
                "relay",
                1L,
                null,
                e.correlationId(),
                null,
                null,
                e.tenantId());
        AmqpMessageMapper.Mapped mapped = AmqpMessageMapper.map(row);
        if (mapped instanceof AmqpMessageMapper.Invalid invalid) {
            assertEquals(ErrorCode.PAYLOAD_INVALID, invalid.code(), invalid.reason());
            return; // parked by the relay, with its reason: never on the wire
        }
        OutboundMessage m = ((AmqpMessageMapper.Ready) mapped).message();
        Delivery delivery = new Delivery(
                new com.rabbitmq.client.Envelope(1, false, m.exchange(), m.routingKey()), m.properties(), m.body());
        try {
            EVERY_CONSUMER.check(delivery);
        } catch (WireContract.Violation v) {
            fail("the relay would publish what consumers dead-letter ("
                    + v.rule().id() + ": " + v.reason() + "): " + e);
        }
    }

    /** What the test leans on: the catalogue has contracts with examples, ordered and unordered. */
    @net.jqwik.api.Example
    void theCatalogueHasExamplesToWorkFrom() {
        List<MessageContract> withExamples =
                CONTRACTS.all().stream().filter(c -> !c.examples().isEmpty()).toList();
        assertEquals(true, withExamples.size() >= 2, "contracts with examples: " + withExamples);
    }
}
