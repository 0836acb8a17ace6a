package dev.outbox.relay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ShutdownSignalException;
import dev.outbox.jdbc.MessageRegistry.RegisteredQueue;
import dev.outbox.kernel.contract.ContractDefinitionException;
import dev.outbox.kernel.contract.MessageContracts;
import dev.outbox.kernel.json.Json;
import dev.outbox.kernel.topology.BrokerTopology;
import dev.outbox.kernel.topology.QueueDeclaration;
import dev.outbox.messaging.FailureDescriptions;
import dev.outbox.messaging.QueueType;
import dev.outbox.messaging.TopicPatterns;
import dev.outbox.messaging.Topology;
import dev.outbox.persistence.outbox.OutboxStore.Routes;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the relay declares on the broker ({@code OUTBOX_RELAY_DECLARE_TOPOLOGY}): the topology on
 * its own classpath, the exchange of every contract it knows (its classpath's and the registry's),
 * and every queue a consumer registered ({@code outbox_queue_declarations}), with {@code
 * "routingKeys": "contracts"} expanded against the contracts known now, so a contract registered
 * later binds too. Declared on every new connection, and again when the registry changes.
 *
 * <p>Each exchange and each queue is declared on a channel of its own. The broker answers a queue
 * that exists with other arguments (another queue type, say) with 406, which closes the channel:
 * that refusal is logged and counted ({@code outbox_relay_topology_refused_total}) and stops
 * neither the other declarations nor publishing. A registered declaration the relay cannot read
 * is skipped the same way, and logged once.
 */
final class RelayTopology {
    private static final Logger LOG = LoggerFactory.getLogger(RelayTopology.class);

    private interface ChannelWork {
        void run(Channel channel) throws IOException;
    }

    private final QueueType queueType;
    private final AtomicLong refused = new AtomicLong();
    /** Counts the topologies {@link #apply} made; {@code declared} is the last one declared whole. */
    private final AtomicLong version = new AtomicLong();

    private volatile long declared = -1;
    /** Counts whole declarations on a connection; {@code routes} is what the last one made exist. */
    private final AtomicLong rounds = new AtomicLong();

    private volatile Declared routes;
    private final Set<String> reported = new HashSet<>(); // guarded by this
    private volatile BrokerTopology current;

    RelayTopology(QueueType queueType, MessageContracts contracts) {
        this.queueType = queueType;
        this.current = BrokerTopology.of(contracts, BrokerTopology.onClasspath().queues());
    }

    /** What the relay declares now. */
    BrokerTopology current() {
        return current;
    }

    /**
     * What a whole declaration on a connection made exist on the broker: the exchanges it declared,
     * and the bindings of the queues it declared on those exchanges.
     *
     * @param round counts the declarations; each may have re-made what the broker had lost
     * @param version the topology it declared ({@link #apply} counts them)
     */
    record Declared(long round, long version, Routes routes) {}

    /** What the last whole declaration made exist; empty before the first. */
    java.util.Optional<Declared> declared() {
        return java.util.Optional.ofNullable(routes);
    }

    /** Declarations the broker refused (406 and the like), or the relay could not read. */
    long refused() {
        return refused.get();
    }

    /**
     * Makes the classpath's topology, {@code contracts}' exchanges and the registered queues what
     * the relay declares.
     *
     * @return whether that differs from what it declared before
     */
    synchronized boolean apply(MessageContracts contracts, List<RegisteredQueue> registered) {
        List<QueueDeclaration> queues =
                new ArrayList<>(BrokerTopology.onClasspath().queues());
        for (RegisteredQueue r : registered) {
            String where =
                    "registered queue " + r.queue() + " (revision " + r.revision() + " by " + r.registeredBy() + ")";
            try {
                JsonNode doc = Json.mapper().readTree(r.declaration());
                if (!(doc instanceof ObjectNode declaration)) {
                    throw new ContractDefinitionException(where + ": a queue declaration is a JSON object");
                }
                queues.add(BrokerTopology.declaration(declaration, where, contracts));
            } catch (Exception e) { // NOPMD: a row any SQL client wrote; whatever fails, it cannot be declared
                if (reported.add(where)) {
                    refused.incrementAndGet();
                    LOG.error("{} cannot be declared and is skipped: {}", where, e.getMessage());
                }
            }
        }
        BrokerTopology before = current;
        BrokerTopology after = BrokerTopology.of(contracts, queues);
        current = after;
        boolean changed = !before.exchanges().equals(after.exchanges())
                || !before.queues().equals(after.queues());
        if (changed) {
            version.incrementAndGet();
            LOG.info(
                    "relay declares exchanges {} and queues {}",
                    after.exchanges(),
                    after.queues().stream().map(QueueDeclaration::name).collect(Collectors.toList()));
        }
        return changed;
    }

    /**
     * Declares what {@link #current} holds on {@code connection}, each part on its own channel.
     *
     * @throws IOException only when the connection itself fails; the next connection declares again
     */
    void declare(Connection connection) throws IOException {
        long v = version.get();
        BrokerTopology t = current;
        Set<String> exchanges = new LinkedHashSet<>();
        for (String exchange : t.exchanges()) {
            if (declareOne(connection, "exchange " + exchange, ch -> Topology.declareExchange(ch, exchange))) {
                exchanges.add(exchange);
            }
        }
        Set<Routes.Binding> bindings = new LinkedHashSet<>();
        for (QueueDeclaration q : t.queues()) {
            boolean bound = declareOne(connection, "queue " + q.name(), ch -> Topology.declareQueue(ch, q, queueType))
                    // refused: the queue exists with other arguments, and its bindings still route
                    || declareOne(connection, "the bindings of queue " + q.name(), ch -> Topology.bindQueue(ch, q));
            if (bound) {
                // on the exchanges declared here only: those are topic exchanges, as the patterns assume
                q.bindings().stream()
                        .filter(b -> exchanges.contains(b.exchange()))
                        .forEach(b -> b.routingKeys()
                                .forEach(key ->
                                        bindings.add(new Routes.Binding(b.exchange(), TopicPatterns.regex(key)))));
            }
        }
        synchronized (this) {
            declared = Math.max(declared, v);
            // a declaration that read an older topology, finishing after one that read a newer,
            // does not replace what the newer made exist
            if (routes == null || v >= routes.version()) {
                routes = new Declared(rounds.incrementAndGet(), v, new Routes(exchanges, List.copyOf(bindings)));
            }
        }
    }

    /**
     * Whether a topology {@link #apply} made has not been declared yet: a registration that came
     * while there was no connection, or while the connection's own declaration read the one before.
     */
    boolean behind() {
        return declared < version.get();
    }

    /** @return whether the broker declared it */
    private boolean declareOne(Connection connection, String what, ChannelWork work) throws IOException {
        Channel channel = connection.createChannel();
        if (channel == null) {
            throw new IOException("no channel left on the connection to declare " + what);
        }
        try {
            work.run(channel);
            return true;
        } catch (IOException e) {
            if (e.getCause() instanceof ShutdownSignalException sse && !sse.isHardError()) {
                // the channel is closed; the connection, and publishing on it, go on
                refused.incrementAndGet();
                LOG.error(
                        "the broker refused to declare {} ({}); publishing goes on, and a row it would have"
                                + " routed is parked as the broker answers it",
                        what,
                        FailureDescriptions.describe(sse));
                return false;
            }
            throw e;
        } catch (RuntimeException e) {
            // refused by the client before anything was sent (a name over AMQP's 255 bytes, say):
            // this declaration only; a channel that may await an answer is aborted, not closed
            refused.incrementAndGet();
            LOG.error("cannot declare {} ({}); publishing goes on", what, e.toString());
            channel.abort();
            return false;
        } finally {
            if (channel.isOpen()) {
                try {
                    channel.close();
                } catch (TimeoutException e) {
                    throw new IOException("timed out closing the channel that declared " + what, e);
                }
            }
        }
    }
}
