package dev.outbox.bench;

import dev.outbox.jdbc.NewOutboxMessage;
import dev.outbox.messaging.QueueType;
import dev.outbox.messaging.publish.OutboundMessage;
import dev.outbox.testkit.EnvFile;
import dev.outbox.testkit.RabbitAdmin;
import dev.outbox.testkit.TestBroker;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Quorum queues on the 3-node cluster of {@code ops/cluster.sh} against classic queues on the
 * single node, side by side in one run and on the same database: the broker ceiling A and the
 * relay R, alternating classic and quorum each round so that drift in the machine hits both.
 * Both publish through one node (the cluster's {@code c1}); a quorum queue's confirm waits until
 * a majority of the three nodes has written the message.
 */
final class QuorumRun {
    static final String VHOST = "outbox-bench";

    private QuorumRun() {}

    static void section(BenchEnv classic, Report report, BenchMain.Options o, Path clusterEnv) throws Exception {
        BenchEnv quorum =
                new BenchEnv(TestBroker.at(clusterNodeUri(clusterEnv), "ops/cluster.sh c1"), QueueType.QUORUM);
        List<NewOutboxMessage> events = Backlog.events(o.rows());
        List<OutboundMessage> messages = BrokerCeiling.messages(events);
        int rounds = o.quick() ? 1 : 3;
        int processes = o.processes().get(0);
        List<List<String>> rows = new ArrayList<>();
        Map<String, List<Double>> ratios = new LinkedHashMap<>();
        for (int round = 1; round <= rounds; round++) {
            Throughput aClassic = progress(BrokerCeiling.run(classic, messages, 1, 1024));
            Throughput aQuorum = progress(BrokerCeiling.run(quorum, messages, 1, 1024));
            Throughput rClassic = progress(
                    RelayDrain.run(classic, events, processes, o.relay(), false).throughput());
            Throughput rQuorum = progress(
                    RelayDrain.run(quorum, events, processes, o.relay(), false).throughput());
            rows.add(row(round, "A (1 channel, window 1024)", aClassic, aQuorum));
            rows.add(row(round, "R (" + processes + " relay process(es))", rClassic, rQuorum));
            ratios.computeIfAbsent("A", k -> new ArrayList<>()).add(aQuorum.perSecond() / aClassic.perSecond());
            ratios.computeIfAbsent("R", k -> new ArrayList<>()).add(rQuorum.perSecond() / rClassic.perSecond());
        }
        classic.clean();
        quorum.clean();
        report.table(
                "Quorum queues on 3 nodes vs classic on 1 (" + o.rows() + " rows per run, same database)",
                List.of("round", "scenario", "classic, 1 node (rows/s)", "quorum, 3 nodes (rows/s)", "quorum/classic"),
                rows);
        report.text("Median quorum/classic: A " + median(ratios.get("A")) + ", R " + median(ratios.get("R"))
                + ". A publishes the relay's own messages with no database; R is the relay draining a"
                + " backlog. Both connect to node c1; the ledger queue's leader may be on another node.");
    }

    private static List<String> row(int round, String scenario, Throughput classic, Throughput quorum) {
        return List.of(
                Integer.toString(round),
                scenario,
                String.format(java.util.Locale.ROOT, "%.0f", classic.perSecond()),
                String.format(java.util.Locale.ROOT, "%.0f", quorum.perSecond()),
                Report.ratio(quorum.perSecond(), classic.perSecond()));
    }

    private static String median(List<Double> values) {
        List<Double> sorted = values.stream().sorted(Comparator.naturalOrder()).toList();
        return String.format(java.util.Locale.ROOT, "%.2f×", sorted.get(sorted.size() / 2));
    }

    private static Throughput progress(Throughput t) {
        System.out.printf(
                java.util.Locale.ROOT, "  %-4s %-28s %8.0f rows/s  %s%n", t.key(), t.what(), t.perSecond(), t.config());
        return t;
    }

    /**
     * The URI of the cluster's first node with the benchmark's own vhost on it (created, and
     * emptied, here): the settings file lists every node, the benchmark publishes through one.
     */
    static String clusterNodeUri(Path clusterEnv) throws IOException, InterruptedException {
        String uri = EnvFile.read(clusterEnv).get("OUTBOX_AMQP_URI");
        if (uri == null) {
            throw new IllegalArgumentException("no OUTBOX_AMQP_URI in " + clusterEnv);
        }
        ctl("delete_vhost", VHOST);
        ctl("add_vhost", VHOST);
        ctl("set_permissions", "-p", VHOST, "guest", ".*", ".*", ".*");
        // amqp://user:pass@h1:p1,h2:p2,h3:p3/vhost -> amqp://user:pass@h1:p1/outbox-bench
        return uri.replaceFirst("^(amqps?://[^@/]*@)?([^,/]+)[^/]*/.*$", "$1$2/")
                + URLEncoder.encode(VHOST, StandardCharsets.UTF_8);
    }

    private static void ctl(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("-n", "c1@localhost"));
        command.addAll(List.of(args));
        try {
            RabbitAdmin.run(command.toArray(String[]::new));
        } catch (IOException e) {
            if (!(args[0].equals("delete_vhost")
                    && String.valueOf(e.getMessage()).contains("does not exist"))) {
                throw e;
            }
        }
    }
}
