package dev.outbox.consumer.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;
import static org.quicktheories.QuickTheory.qt;

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
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * The relay and the consumers judge a message by the same contract: whatever row the relay's
 * mapper turns into a message (and so would publish and mark {@code PUBLISHED}), every consumer's
 * wire-contract check accepts. A row the consumers would dead-letter must be parked by the relay
 * instead, with its reason, where an operator sees it. Rows are generated from each contract's
 * own examples with their envelope varied: aggregate type, version, exchange, routing key,
 * headers, correlation id, tenant. They are generated with a new seed each run: a failure prints
 * its shrunk envelope and the seed, which {@code -DQT_SEED=<seed>} replays.
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

    /** A contract with examples (each equally likely), then one of its envelopes. */
    static Gen<Envelope> envelopes() {
        List<MessageContract> withExamples =
                CONTRACTS.all().stream().filter(c -> !c.examples().isEmpty()).toList();
        return Generate.pick(withExamples).flatMap(RelayAndConsumerAgreeTest::envelopesOf);
    }

    /** One of the contract's examples in an envelope whose every part is drawn from its own generator. */
    private static Gen<Envelope> envelopesOf(MessageContract c) {
        Gen<JsonNode> example = Generate.pick(c.examples());
        Gen<String> aggregateType = Generate.pick(List.of(c.aggregateType(), "other", ""));
        Gen<Long> aggregateVersion = Generate.pick(Arrays.asList(null, 1L, 2L, Long.MAX_VALUE));
        Gen<String> exchange = Generate.pick(List.of(c.exchange(), "amq.topic"));
        Gen<String> routingKey = Generate.pick(List.of(c.routingKey(), c.routingKey() + ".x", "other"));
        Gen<String> headers = Generate.pick(List.of(
                "{}",
                "{\"x-source\":\"import\"}",
                "{\"traceparent\":\"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\"}",
                "{\"traceparent\":\"not-a-traceparent\"}",
                "{\"aggregate_version\":\"7\"}",
                "{\"n\":1.5}"));
        Gen<String> correlationId = Generate.pick(Arrays.asList(null, "corr-1", ""));
        Gen<String> tenantId = Generate.pick(Arrays.asList(null, "tenant-a"));
        // eight parts, more than one zip takes: drawn in turn from the same source, as zip draws them
        return in -> new Envelope(
                c,
                example.generate(in),
                aggregateType.generate(in),
                aggregateVersion.generate(in),
                exchange.generate(in),
                routingKey.generate(in),
                headers.generate(in),
                correlationId.generate(in),
                tenantId.generate(in));
    }

    @Test
    void everyMessageTheRelayWouldSendIsOneEveryConsumerAccepts() {
        qt().withExamples(500).forAll(envelopes()).checkAssert(RelayAndConsumerAgreeTest::isAcceptedOrParked);
    }

    private static void isAcceptedOrParked(Envelope e) {
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
                OutboxStatus.IN_PROGRESS.name(),
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
    @Test
    void theCatalogueHasExamplesToWorkFrom() {
        List<MessageContract> withExamples =
                CONTRACTS.all().stream().filter(c -> !c.examples().isEmpty()).toList();
        assertEquals(true, withExamples.size() >= 2, "contracts with examples: " + withExamples);
    }
}
