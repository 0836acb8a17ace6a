package dev.outbox.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.UUID;

/**
 * The state an operation of {@code /openapi.json} needs before its documented request can be
 * sent (its {@code x-fixture}): an order placed with the document's own example, captured, or an
 * outbox row in a given status. Made fresh each time, since a write may use it up.
 *
 * @param id what the operation's {@code {id}} path parameter takes
 * @param aggregateId the aggregate the state belongs to
 */
record DocumentFixture(String id, String aggregateId) {

    static DocumentFixture make(String name, JsonNode doc, RunningApi api) throws Exception {
        switch (name) {
            case "" -> {
                return new DocumentFixture("", "");
            }
            case "placedOrder", "capturedOrder" -> {
                JsonNode example =
                        doc.at("/paths/~1orders/post/requestBody/content/application~1json/examples/valid/value");
                ApiClient.Reply placed = api.client().post("/orders", example.toString());
                assertEquals(201, placed.status(), placed.body());
                String id = placed.json().get("id").asText();
                if (name.equals("capturedOrder")) {
                    ApiClient.Reply captured = api.client()
                            .post(
                                    "/orders/" + id + "/capture",
                                    "{\"amount\":\""
                                            + placed.json().get("total").asText() + "\"}");
                    assertEquals(200, captured.status(), captured.body());
                }
                return new DocumentFixture(id, id);
            }
            case "parkedRow", "publishedRow", "leasedRow" -> {
                String status = switch (name) {
                    case "parkedRow" -> "PARKED";
                    case "publishedRow" -> "PUBLISHED";
                    default -> "IN_PROGRESS";
                };
                String aggregate = UUID.randomUUID().toString();
                return new DocumentFixture(
                        OpsApiIT.row(status, "UNROUTABLE", "order.created", aggregate, 1L)
                                .toString(),
                        aggregate);
            }
            default -> throw new AssertionError("unknown x-fixture " + name);
        }
    }
}
