package dev.outbox.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProcessSocketsTest {
    @Test
    void aConnectionThisProcessHoldsIsFoundWithBothPortsAndGoneOnceClosed() throws Exception {
        assumeTrue(ProcessSockets.available(), "needs /proc/net/tcp (Linux)");
        long self = ProcessHandle.current().pid();
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            ProcessSockets.Socket mine;
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
                    Socket accepted = server.accept()) {
                mine = new ProcessSockets.Socket(client.getLocalPort(), server.getLocalPort());
                List<ProcessSockets.Socket> held = ProcessSockets.of(self, ProcessSockets.table());
                assertTrue(held.contains(mine), "client side " + mine + " in " + held);
                assertTrue(
                        held.contains(new ProcessSockets.Socket(server.getLocalPort(), client.getLocalPort())),
                        "the accepted side too");
                assertTrue(
                        held.stream().noneMatch(s -> s.localPort() == server.getLocalPort() && s.remotePort() == 0),
                        "a listening socket is no connection");
            }
            assertFalse(ProcessSockets.of(self, ProcessSockets.table()).contains(mine), "closed: gone");
        }
    }

    @Test
    void aProcessThatIsGoneHoldsNothing() throws Exception {
        assumeTrue(ProcessSockets.available(), "needs /proc/net/tcp (Linux)");
        Process p = new ProcessBuilder("true").start();
        p.waitFor();
        assertEquals(List.of(), ProcessSockets.of(p.pid(), ProcessSockets.table()));
    }
}
