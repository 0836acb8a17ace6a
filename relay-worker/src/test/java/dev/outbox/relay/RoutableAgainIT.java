package dev.outbox.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.quicktheories.QuickTheory.qt;

import com.rabbitmq.client.Channel;
import dev.outbox.messaging.TopicPatterns;
import dev.outbox.persistence.outbox.OutboxStore;
import dev.outbox.persistence.outbox.OutboxStore.Routes;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;
import org.quicktheories.generators.SourceDSL;

/**
 * Which parked rows the relay makes due again after it declared an exchange or a binding: the
 * topic patterns as PostgreSQL reads them, held against the broker's own routing, and the cutoff
 * that keeps a row it made due, and that parked again, from going round at every look.
 */
class RoutableAgainIT {
    private static final String X = "routable.x";
    private static final String OTHER = "routable.other";

    @RegisterExtension
    final OutboxFixtures fx = OutboxFixtures.create().reset();

    @AfterEach
    void noProbeExchange() {
        fx.broker.deleteExchange(X);
    }

    /**
     * For any binding key and routing key, the statement the relay runs makes a row parked
     * UNROUTABLE with that key due exactly when RabbitMQ's topic exchange routes the key by that
     * binding: a mandatory publish comes back returned when it does not. Words mix the wildcards,
     * empty words and characters a regular expression would read as its own; the pairs around
     * the empty key, which the broker reads as no word at all, are tried first.
     */
    @Test
    void theRelaysStatementMatchesExactlyWhatTheBrokerRoutes() {
        fx.broker.declareTopicExchange(X);
        OutboxStore store = fx.injector.getInstance(OutboxStore.class);
        Set<Boolean> outcomes = new java.util.HashSet<>();
        fx.broker.withChannel(ch -> {
            String queue = ch.queueDeclare("", false, true, true, Map.of()).getQueue();
            ch.confirmSelect();
            AtomicBoolean returned = new AtomicBoolean();
            ch.addReturnListener(r -> returned.set(true));
            for (String binding : List.of("", "*", "#", "#.*", "*.#", "#.", ".#", ".")) {
                for (String key : List.of("", ".", "a")) {
                    assertAgree(store, ch, queue, returned, binding, key);
                }
            }
            qt().withFixedSeed(44_2026L)
                    .withExamples(400)
                    .forAll(keys(true), keys(false))
                    .checkAssert((binding, key) -> outcomes.add(assertAgree(store, ch, queue, returned, binding, key)));
        });
        assertEquals(Set.of(true, false), outcomes, "keys routed and keys not routed were both tried");
    }

    private boolean assertAgree(
            OutboxStore store, Channel ch, String queue, AtomicBoolean returned, String binding, String key) {
        boolean routes = brokerRoutes(ch, queue, returned, binding, key);
        fx.db.update("DELETE FROM message_outbox");
        parked("UNROUTABLE", X, key, "now() - interval '1 hour'");
        boolean matches = !store.retryRoutable(
                        new Routes(Set.of(X), List.of(new Routes.Binding(X, TopicPatterns.regex(binding)))), null)
                .ids()
                .isEmpty();
        assertEquals(routes, matches, () -> "binding '" + binding + "', key '" + key + "'");
        return routes;
    }

    private static boolean brokerRoutes(Channel ch, String queue, AtomicBoolean returned, String binding, String key) {
        try {
            ch.queueBind(queue, X, binding);
            returned.set(false);
            ch.basicPublish(X, key, true, null, new byte[0]);
            ch.waitForConfirmsOrDie(10_000);
            ch.queueUnbind(queue, X, binding);
            ch.queuePurge(queue);
            // the return comes before the confirm on the same channel
            return !returned.get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Dot-separated words, up to five: wildcards in binding keys, literal words everywhere. */
    private static Gen<String> keys(boolean binding) {
        List<String> words = binding
                ? List.of("a", "b", "", "*", "#", "a+b", "(x", "[y]", "$", "\\", "é", "a|b", "?")
                : List.of("a", "b", "", "*", "#", "a+b", "(x", "[y]", "$", "\\", "é", "a|b", "?", "ab");
        return SourceDSL.lists().of(Generate.pick(words)).ofSizeBetween(1, 5).map(w -> String.join(".", w));
    }

    private UUID parked(String code, String exchange, String routingKey, String nextAttemptAt) {
        UUID id = fx.insertRaw("routable.probe", routingKey, exchange, "{}");
        fx.db.update(
                "UPDATE message_outbox SET status = 'PARKED', last_error_code = ?, attempt_count = 3,"
                        + " next_attempt_at = " + nextAttemptAt + " WHERE id = ?",
                code,
                id);
        return id;
    }

    private Set<UUID> due() {
        return fx.db.rows("SELECT id FROM message_outbox WHERE status = 'PENDING' AND attempt_count = 0").stream()
                .map(r -> (UUID) r.get("id"))
                .collect(Collectors.toSet());
    }

    /**
     * The first look after a declaration takes every row the declared exchanges and bindings
     * route, whatever its code's neighbours; a later look of the same declaration takes only rows
     * due before the first one (a publish under way while the relay declared); the next
     * declaration takes again what parked again.
     */
    @Test
    void aDeclarationMakesDueWhatItRoutesAndEachRowOnceUntilTheNextDeclaration() {
        UUID noExchange = parked("EXCHANGE_NOT_FOUND", X, "order.created", "now() - interval '1 hour'");
        UUID otherExchange = parked("EXCHANGE_NOT_FOUND", OTHER, "order.created", "now() - interval '1 hour'");
        UUID unrouted = parked("UNROUTABLE", X, "order.created", "now() - interval '1 hour'");
        UUID unboundKey = parked("UNROUTABLE", X, "shipment.sent", "now() - interval '1 hour'");
        UUID boundOnlyElsewhere = parked("UNROUTABLE", OTHER, "order.created", "now() - interval '1 hour'");
        UUID invalid = parked("PAYLOAD_INVALID", X, "order.created", "now() - interval '1 hour'");
        UUID notParked = parked("EXCHANGE_NOT_FOUND", X, "order.created", "now() - interval '1 hour'");
        fx.db.update("UPDATE message_outbox SET status = 'RETRYABLE_FAILED' WHERE id = ?", notParked);
        AtomicReference<RelayTopology.Declared> declared = new AtomicReference<>(new RelayTopology.Declared(
                1, 0, new Routes(Set.of(X), List.of(new Routes.Binding(X, TopicPatterns.regex("order.#"))))));
        OutboxStore store = fx.injector.getInstance(OutboxStore.class);
        RoutableAgain routable = new RoutableAgain(() -> Optional.of(declared.get()), store::retryRoutable);

        routable.look();

        assertEquals(Set.of(noExchange, unrouted), due());
        assertEquals(
                List.of("PARKED", "PARKED", "PARKED", "PARKED", "RETRYABLE_FAILED"),
                List.of(
                        fx.status(otherExchange),
                        fx.status(unboundKey),
                        fx.status(boundOnlyElsewhere),
                        fx.status(invalid),
                        fx.status(notParked)),
                "another exchange, a key no binding routes, another code, a row not parked: left as they are");

        // it went out, and parked again (the exchange deleted since, say); and a row whose publish
        // was under way during the declaration parks now, due from before it
        fx.db.update("UPDATE message_outbox SET status = 'PARKED', attempt_count = 1 WHERE id = ?", noExchange);
        fx.db.update("UPDATE message_outbox SET status = 'PARKED', attempt_count = 1 WHERE id = ?", unrouted);
        UUID underWay = parked("EXCHANGE_NOT_FOUND", X, "order.created", "now() - interval '1 minute'");

        routable.look();

        assertEquals(Set.of(underWay), due(), "once per declaration: the rows made due before stay parked");

        declared.set(new RelayTopology.Declared(2, 0, declared.get().routes()));
        routable.look();

        assertEquals(Set.of(noExchange, unrouted, underWay), due(), "a new declaration may have re-made what was lost");
        assertEquals(5, routable.retried());
    }
}
