package dev.outbox.bench;

import dev.outbox.DomainEvent;
import dev.outbox.MessageContext;
import dev.outbox.TimeOrderedIds;
import dev.outbox.domain.Money;
import dev.outbox.domain.Order;
import dev.outbox.domain.OrderLine;
import dev.outbox.jdbc.NewOutboxMessage;
import dev.outbox.jdbc.OutboxMessages;
import java.io.StringReader;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Currency;
import java.util.List;
import java.util.UUID;
import org.postgresql.PGConnection;

/**
 * The benchmark's events: real order events made by the domain and turned into outbox rows by
 * the same code the API uses ({@link OutboxMessages}), so every scenario moves the payload the
 * product moves (an {@code order.created} is about 300 bytes of JSON). Half the orders are also
 * captured, so half the aggregates have a version 2 that strict per-aggregate ordering must hold
 * back until version 1 is published. The rollout test ({@code ops/rollout.sh}) drains the same rows.
 */
public final class Backlog {
    private static final Currency EUR = Money.currency("EUR");

    private Backlog() {}

    /** {@code n} events: orders placed, every second one captured as well. */
    public static List<NewOutboxMessage> events(int n) {
        return events(n, true);
    }

    /**
     * {@code n} {@code order.created} events, one per aggregate: for load generators that commit
     * on several connections at once, where a capture could otherwise commit before its order.
     */
    static List<NewOutboxMessage> placed(int n) {
        return events(n, false);
    }

    private static List<NewOutboxMessage> events(int n, boolean capture) {
        List<NewOutboxMessage> out = new ArrayList<>(n);
        Instant now = Instant.now();
        int i = 0;
        while (out.size() < n) {
            Order.Transition placed = Order.place(
                    TimeOrderedIds.next(now.toEpochMilli()),
                    "customer-" + (i % 5_000),
                    null,
                    EUR,
                    List.of(
                            new OrderLine("SKU-" + (i % 977), 1 + i % 3, price("19.99")),
                            new OrderLine("SKU-GIFT-WRAP", 1, price("2.50"))),
                    now);
            add(out, placed, n);
            if (capture && i % 2 == 0 && out.size() < n) {
                add(out, placed.order().capture(placed.order().total(), UUID.randomUUID(), now), n);
            }
            i++;
        }
        return out;
    }

    /** One order.created event, as the API would write it. */
    static NewOutboxMessage one() {
        return events(1).get(0);
    }

    private static void add(List<NewOutboxMessage> out, Order.Transition t, int limit) {
        MessageContext ctx = new MessageContext("bench-" + out.size(), null, null, null);
        for (DomainEvent e : t.events()) {
            if (out.size() < limit) {
                out.add(OutboxMessages.from(e, ctx, System.currentTimeMillis()));
            }
        }
    }

    private static Money price(String s) {
        return Money.of(new BigDecimal(s), EUR);
    }

    /**
     * Writes the messages as {@code PENDING} rows with {@code COPY} on the caller's connection
     * (the caller commits): the fastest way to lay down a backlog, so set-up does not dominate.
     */
    public static void copy(Connection c, List<NewOutboxMessage> messages) throws SQLException {
        try {
            var copy = c.unwrap(PGConnection.class).getCopyAPI();
            for (int from = 0; from < messages.size(); from += 20_000) {
                StringBuilder sb = new StringBuilder();
                for (NewOutboxMessage m : messages.subList(from, Math.min(messages.size(), from + 20_000))) {
                    sb.append(m.id())
                            .append('\t')
                            .append(text(m.aggregateType()))
                            .append('\t')
                            .append(text(m.aggregateId()))
                            .append('\t')
                            .append(
                                    m.aggregateVersion() == null
                                            ? "\\N"
                                            : m.aggregateVersion().toString())
                            .append('\t')
                            .append(text(m.messageType()))
                            .append('\t')
                            .append(m.messageVersion())
                            .append('\t')
                            .append(text(m.exchangeName()))
                            .append('\t')
                            .append(text(m.routingKey()))
                            .append('\t')
                            .append(text(m.payload()))
                            .append('\t')
                            .append(text(m.headers()))
                            .append('\t')
                            .append(m.correlationId() == null ? "\\N" : text(m.correlationId()))
                            .append('\n');
                }
                copy.copyIn(
                        "COPY message_outbox (id, aggregate_type, aggregate_id, aggregate_version, message_type,"
                                + " message_version, exchange_name, routing_key, payload, headers, correlation_id) FROM STDIN",
                        new StringReader(sb.toString()));
            }
        } catch (java.io.IOException e) {
            throw new SQLException("COPY into message_outbox failed", e);
        }
    }

    /** COPY text format: escape the backslash and the three characters that end a field or row. */
    private static String text(String s) {
        return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r");
    }
}
