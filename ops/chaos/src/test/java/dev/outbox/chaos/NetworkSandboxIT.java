package dev.outbox.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.outbox.testkit.net.NetworkSandbox;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * The sandbox's own housekeeping, on this machine's network stack: what a test JVM that died
 * left behind (a namespace, and the host's end of a veth pair whose other end was inside it) is
 * removed by the next sandbox, and a leftover that vanishes while it is being removed does not
 * fail the test that found it. CI failed once on exactly that: deleting the namespace took the
 * veth with it, and the next step's {@code ip link del} said "Cannot find device".
 */
class NetworkSandboxIT {
    @Test
    void leftoversOfADeadJvmAreRemovedEvenWhenTheyVanishUnderfoot() throws Exception {
        boolean required = "1".equals(System.getenv("OUTBOX_REQUIRE_NETNS"));
        if (!NetworkSandbox.available()) {
            if (required) {
                throw new IllegalStateException(
                        "OUTBOX_REQUIRE_NETNS=1 but this machine cannot make network namespaces");
            }
            assumeTrue(false, "needs root and iproute2 for network namespaces");
        }
        // a pid no process has, in its last five digits either (the veth names keep only those)
        long dead = LongStream.range(90_000, 99_999)
                .filter(p -> ProcessHandle.allProcesses().noneMatch(h -> h.pid() % 100_000 == p))
                .findFirst()
                .orElseThrow();
        String namespace = "obx-" + dead + "-0";
        String host = "oxh" + dead + "x0x0";
        String inside = "oxs" + dead + "x0x0";
        ip("netns", "add", namespace);
        ip("link", "add", host, "type", "veth", "peer", "name", inside);
        ip("link", "set", inside, "netns", namespace);
        // and a second host end whose pair is wholly on this host: only the link sweep removes it
        String lone = "oxh" + dead + "x0x1";
        ip("link", "add", lone, "type", "veth", "peer", "name", "oxs" + dead + "x0x1");
        assertTrue(ip("netns", "list").contains(namespace));
        assertTrue(ip("-o", "link", "show").contains(host));

        try (NetworkSandbox sandbox = NetworkSandbox.create()) {
            NetworkSandbox.Link link = sandbox.link();
            assertTrue(link.sandboxAddress().startsWith("169.254."), link.sandboxAddress());
        }

        assertFalse(ip("netns", "list").contains(namespace), "the dead JVM's namespace is gone");
        String links = ip("-o", "link", "show");
        assertFalse(links.contains(host), "its veth went with it");
        assertFalse(links.contains(lone), "the lone host end is gone too");
        assertEquals(
                List.of(),
                ip("netns", "list")
                        .lines()
                        .filter(l ->
                                l.startsWith("obx-" + ProcessHandle.current().pid()))
                        .toList(),
                "the sandbox removed its own namespace");
    }

    private static String ip(String... args) throws IOException, InterruptedException {
        List<String> command = new java.util.ArrayList<>(List.of("ip"));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(10, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), String.join(" ", command) + ": " + out);
        return out;
    }
}
