package dev.outbox.messaging;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.outbox.testkit.TestBroker;
import org.junit.jupiter.api.Test;

class TopologyIT {
    @Test
    void declaringTwiceIsHarmlessAndCreatesDurableQueues() {
        TestBroker broker = TestBroker.get();
        broker.withChannel(Topology::declare);
        broker.withChannel(Topology::declare);
        broker.purgeIfExists(Topology.LEDGER_QUEUE);
        assertEquals(0, broker.messageCount(Topology.LEDGER_QUEUE));
    }
}
