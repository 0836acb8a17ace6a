package dev.outbox.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.testkit.net.NetworkSandbox;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * The sandbox's own housekeeping, on this machine's network stack: what a test JVM that died
 * left behind (namespaces, and the host's ends of veth pairs whose other ends were inside them)
 * is removed by the next sandbox, and nothing of it fails the test that found it. CI failed once
 * on a leftover that vanished between being listed and being deleted ({@code ip link del} said
 * "Cannot find device"): the kernel tears a deleted namespace, and the veths in it, down
 * asynchronously. That race depends on the kernel's timing and did not reproduce here against
 * the old code (which this test therefore does not fail); the cleanup now treats a leftover it
 * cannot remove as someone else's, logs it, and goes on, and this test holds it to removing all
 * that it can.
 */
class NetworkSandboxIT {
    @Test
    void leftoversOfADeadJvmAreRemovedEvenWhenTheyVanishUnderfoot() throws Exception {
        // skipped only where namespaces cannot be made; CI requires them. Nothing replaces it where
        // they cannot be made: without namespaces there is nothing to clean up
        NetnsRequirement.requireOrSkip();
        // a pid no process has, in its last five digits either (the veth names keep only those)
        long dead = LongStream.range(90_000, 99_999)
                .filter(p -> ProcessHandle.allProcesses().noneMatch(h -> h.pid() % 100_000 == p))
                .findFirst()
                .orElseThrow();
        // ten, as a JVM with ten sandboxes leaves them: the kernel tears a deleted namespace down
        // asynchronously, so host ends listed just after the deletions vanish a moment later (19
        // of 20 were still listed right after, none 200 ms later, on this machine)
        List<String> namespaces = new java.util.ArrayList<>();
        List<String> hosts = new java.util.ArrayList<>();
        for (int i = 0; i < 10; i++) {
            String namespace = "obx-" + dead + "-" + i;
            String host = "oxh" + dead + "x" + i + "x0";
            String inside = "oxs" + dead + "x" + i + "x0";
            ip("netns", "add", namespace);
            ip("link", "add", host, "type", "veth", "peer", "name", inside);
            ip("link", "set", inside, "netns", namespace);
            namespaces.add(namespace);
            hosts.add(host);
        }
        // and a host end whose pair is wholly on this host: only the link sweep removes it
        String lone = "oxh" + dead + "x0x1";
        ip("link", "add", lone, "type", "veth", "peer", "name", "oxs" + dead + "x0x1");
        String before = ip("-o", "link", "show");
        assertTrue(hosts.stream().allMatch(before::contains));

        try (NetworkSandbox sandbox = NetworkSandbox.create()) {
            NetworkSandbox.Link link = sandbox.link();
            assertTrue(link.sandboxAddress().startsWith("169.254."), link.sandboxAddress());
        }

        String left = ip("netns", "list");
        assertEquals(List.of(), namespaces.stream().filter(left::contains).toList(), "the dead JVM's namespaces");
        // the kernel's teardown of the namespaces may still be finishing
        org.awaitility.Awaitility.await()
                .atMost(java.time.Duration.ofSeconds(10))
                .pollInterval(java.time.Duration.ofMillis(100))
                .untilAsserted(() -> {
                    String now = ip("-o", "link", "show");
                    assertEquals(
                            List.of(), hosts.stream().filter(now::contains).toList(), "their veths went with them");
                });
        String links = ip("-o", "link", "show");
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
