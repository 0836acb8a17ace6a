package dev.outbox.api.docs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.outbox.kernel.contract.MessageContract;
import dev.outbox.kernel.contract.MessageContracts;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The AsyncAPI 3.0 document of what this service publishes, generated from the message contracts:
 * one channel per routing key on its exchange (AMQP binding {@code is: routingKey}), one
 * {@code send} operation per channel, and per contract version a message with the payload schema
 * from its contract file and the AMQP properties and headers of the wire contract. Nothing in it
 * is written by hand, so it cannot drift from what the relay sends.
 */
public final class AsyncApiDocument {
    static final String AMQP_BINDING_VERSION = "0.3.0";
    private static final ObjectMapper JSON = new ObjectMapper();

    private AsyncApiDocument() {}

    public static ObjectNode generate(MessageContracts contracts, String version) {
        ObjectNode doc = JSON.createObjectNode();
        doc.put("asyncapi", "3.0.0");
        ObjectNode info = doc.putObject("info");
        info.put("title", "Order service events");
        info.put("version", version);
        info.put(
                "description",
                "Domain events published by the transactional outbox relay. Every message is"
                        + " published persistent (deliveryMode 2) with mandatory=true on a confirm channel, at least once:"
                        + " messageId is the outbox row id and stays the same on every retry and replay, so consumers"
                        + " deduplicate on it. Events of one aggregate are published in aggregate_version order unless"
                        + " their type is unordered. The body is the payload snapshot stored in the outbox row, byte for"
                        + " byte.");
        doc.put("defaultContentType", "application/json");

        Map<String, List<MessageContract>> byChannel = new LinkedHashMap<>();
        for (MessageContract c : contracts.all()) {
            byChannel
                    .computeIfAbsent(channelId(c), k -> new java.util.ArrayList<>())
                    .add(c);
        }
        ObjectNode channels = doc.putObject("channels");
        ObjectNode operations = doc.putObject("operations");
        ObjectNode messages = doc.putObject("components").putObject("messages");
        byChannel.forEach((channelId, versions) -> {
            MessageContract first = versions.get(0);
            ObjectNode channel = channels.putObject(channelId);
            channel.put("address", first.routingKey());
            channel.put("title", first.messageType());
            channel.put(
                    "description",
                    "Routing key " + first.routingKey() + " on the durable topic exchange "
                            + first.exchange() + ". "
                            + (first.ordered()
                                    ? "Ordered: per aggregate, in aggregate_version order."
                                    : "Unordered: published without waiting for earlier versions of its aggregate."));
            ObjectNode channelMessages = channel.putObject("messages");
            ObjectNode amqp = channel.putObject("bindings").putObject("amqp");
            amqp.put("is", "routingKey");
            ObjectNode exchange = amqp.putObject("exchange");
            exchange.put("name", first.exchange());
            exchange.put("type", "topic");
            exchange.put("durable", true);
            exchange.put("autoDelete", false);
            amqp.put("bindingVersion", AMQP_BINDING_VERSION);

            ObjectNode operation = operations.putObject("publish." + channelId);
            operation.put("action", "send");
            operation.putObject("channel").put("$ref", "#/channels/" + channelId);
            operation.put(
                    "summary",
                    "The relay publishes " + first.messageType() + " after the transaction that"
                            + " recorded it committed.");
            ArrayNode opMessages = operation.putArray("messages");
            ObjectNode opAmqp = operation.putObject("bindings").putObject("amqp");
            opAmqp.put("deliveryMode", 2);
            opAmqp.put("mandatory", true);
            opAmqp.put("timestamp", true);
            opAmqp.put("bindingVersion", AMQP_BINDING_VERSION);

            for (MessageContract c : versions) {
                String messageId = messageId(c);
                messages.set(messageId, message(c));
                channelMessages.putObject(messageId).put("$ref", "#/components/messages/" + messageId);
                opMessages.addObject().put("$ref", "#/channels/" + channelId + "/messages/" + messageId);
            }
        });
        return doc;
    }

    /** A channel per exchange and routing key; its id is the routing key where the exchange is the usual one. */
    static String channelId(MessageContract c) {
        return c.exchange() + "." + c.routingKey();
    }

    static String messageId(MessageContract c) {
        return c.messageType() + ".v" + c.version();
    }

    private static ObjectNode message(MessageContract c) {
        ObjectNode m = JSON.createObjectNode();
        m.put("name", c.messageType());
        m.put("title", c.title());
        if (!c.description().isEmpty()) {
            m.put("summary", c.description());
        }
        m.put("contentType", "application/json");
        m.put(
                "description",
                "AMQP properties: messageId = the outbox row id (UUID; the deduplication key),"
                        + " type = \"" + c.messageType() + "\", correlationId = the request's correlation id,"
                        + " timestamp = when the row was written, contentType application/json, contentEncoding utf-8,"
                        + " deliveryMode 2.");
        m.set("headers", headers(c));
        m.set("payload", c.payloadSchema());
        ObjectNode amqp = m.putObject("bindings").putObject("amqp");
        amqp.put("contentEncoding", "utf-8");
        amqp.put("messageType", c.messageType());
        amqp.put("bindingVersion", AMQP_BINDING_VERSION);
        ArrayNode examples = m.putArray("examples");
        for (JsonNode example : c.examples()) {
            ObjectNode e = examples.addObject();
            ObjectNode h = e.putObject("headers");
            h.put("message_type", c.messageType());
            h.put("message_version", c.version());
            h.put("aggregate_type", c.aggregateType());
            h.set("aggregate_id", example.get(c.aggregateIdProperty()));
            h.put("aggregate_version", 1);
            e.set("payload", example);
        }
        return m;
    }

    private static ObjectNode headers(MessageContract c) {
        ObjectNode h = JSON.createObjectNode();
        h.put("type", "object");
        ArrayNode required = h.putArray("required");
        List.of("message_type", "message_version", "aggregate_type", "aggregate_id", "aggregate_version")
                .forEach(required::add);
        ObjectNode p = h.putObject("properties");
        p.putObject("message_type").put("const", c.messageType());
        p.putObject("message_version").put("const", c.version());
        p.putObject("aggregate_type").put("const", c.aggregateType());
        p.putObject("aggregate_id")
                .put("type", "string")
                .put("description", "Equals the payload's " + c.aggregateIdProperty() + ".");
        p.putObject("aggregate_version")
                .put("type", "integer")
                .put("minimum", 1)
                .put("description", "Gapless per aggregate, from 1: apply in this order.");
        p.putObject("tenant_id").put("type", "string").put("description", "Present when the aggregate has a tenant.");
        p.putObject("causation_id")
                .put("type", "string")
                .put("description", "The messageId of the event that caused this one, when there was one.");
        p.putObject("traceparent")
                .put("type", "string")
                .put("pattern", "^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$")
                .put("description", "W3C trace context of the request that recorded the event, when it had one.");
        return h;
    }
}
