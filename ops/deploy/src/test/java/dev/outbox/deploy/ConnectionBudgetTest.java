package dev.outbox.deploy;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.deploy.Workloads.Workload;
import java.io.IOException;
import java.nio.file.Files;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL refuses a connection past {@code max_connections} less the reserved ones: then a pod
 * that starts, or a pool that grows, fails. Production at its largest (the autoscaler's maximum,
 * every Deployment's replicas) and in a rollout (each Deployment's surge on top) must fit, with a
 * margin for people and tools, in the server the README describes. ConnectionsIT measures the
 * per-process numbers and checks the local overlay against the test database's own settings.
 */
class ConnectionBudgetTest {
    @Test
    void productionAtItsLargestAndInARolloutFitsTheServersConnections() throws IOException {
        String section = kubernetesSection();
        int max = number(section, "`max_connections = (\\d+)`");
        int reserved = number(section, "`superuser_reserved_connections = (\\d+)`");
        int margin = number(section, "a margin of (\\d+) connections");
        int total = 0;
        StringBuilder sum = new StringBuilder();
        for (Workload w : Workloads.of(ManifestFiles.OVERLAYS.resolve("production"))) {
            Connections c = w.process().connections(w.settings());
            total += w.podsDuringARollout() * c.peak();
            sum.append("\n  ")
                    .append(w.name())
                    .append(": ")
                    .append(w.podsDuringARollout())
                    .append(" pods x ")
                    .append(c);
        }
        System.out.println("production: " + total + " connections at most:" + sum);
        assertTrue(
                total <= max - reserved - margin,
                "production may hold " + total + " connections, over max_connections " + max + " - " + reserved
                        + " reserved - a margin of " + margin + ":" + sum);
    }

    /**
     * A pool smaller than the threads that borrow from it at once makes them wait, each up to the
     * connect timeout and then failing: the relay's publishers, recorder, suspect thread, stale-lease
     * timer, dead-relay sweep, liveness holder and retention, and the two threads of its HTTP
     * endpoint (a readiness check, a scrape whose gauges read the outbox); a consumer's one handler
     * per channel, its retention, and the same two.
     */
    @Test
    void eachWorkersPoolCoversTheThreadsThatBorrowFromItAtOnce() {
        for (Workload w : Workloads.all()) {
            int pool = w.settings().get(dev.outbox.persistence.DatabaseConfig.POOL_SIZE);
            int borrowers;
            if (w.process() == OutboxProcess.RELAY) {
                borrowers = w.settings().get(dev.outbox.relay.RelayConfig.PUBLISHERS) + 6 + 2;
            } else if (w.process().isConsumer()) {
                String prefix = w.process().registration().settingsPrefix();
                borrowers = w.settings().<Integer>get(Declarations.named("OUTBOX_" + prefix + "_CHANNELS")) + 1 + 2;
            } else {
                continue; // the API's requests wait for a connection in turn, up to the connect timeout
            }
            assertTrue(pool >= borrowers, w + ": a pool of " + pool + " for " + borrowers + " threads at once");
        }
    }

    static String kubernetesSection() throws IOException {
        String readme = Files.readString(ManifestFiles.README);
        int start = readme.indexOf("### Kubernetes");
        assertTrue(start >= 0, ManifestFiles.README + " has no '### Kubernetes' section");
        int end = readme.indexOf("\n## ", start);
        return readme.substring(start, end < 0 ? readme.length() : end);
    }

    static int number(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        assertTrue(m.find(), "the Kubernetes section of " + ManifestFiles.README + " states no " + regex);
        return Integer.parseInt(m.group(1));
    }
}
