package dev.outbox.chaos;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.outbox.testkit.net.NetworkSandbox;

/**
 * The network-namespace tests need root and iproute2. Where namespaces cannot be made they are
 * skipped, with the reason; CI sets {@code OUTBOX_REQUIRE_NETNS=1}, and there they fail instead, so
 * they never skip silently where they matter.
 */
final class NetnsRequirement {
    private NetnsRequirement() {}

    /** Fails under {@code OUTBOX_REQUIRE_NETNS=1}, skips elsewhere, when namespaces cannot be made. */
    static void requireOrSkip() {
        boolean available = NetworkSandbox.available();
        if (!available && "1".equals(System.getenv("OUTBOX_REQUIRE_NETNS"))) {
            throw new IllegalStateException(
                    "OUTBOX_REQUIRE_NETNS=1 but this machine cannot make network namespaces (root and iproute2)");
        }
        assumeTrue(available, "needs root and iproute2 for network namespaces (CI requires them)");
    }
}
