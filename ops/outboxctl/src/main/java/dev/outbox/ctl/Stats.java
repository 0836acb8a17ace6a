package dev.outbox.ctl;

import dev.outbox.ctl.Commands.Base;
import dev.outbox.ops.views.OpsOverviewViews;
import java.io.PrintWriter;
import picocli.CommandLine.Command;

@Command(
        name = "stats",
        mixinStandardHelpOptions = true,
        description = "Counts by status, published in the last hour, oldest pending age, parked by error code.")
final class Stats extends Base {
    @Override
    int run(OpsClient client, PrintWriter out, PrintWriter err) {
        print(out, client.get("/ops/outbox/stats", OpsOverviewViews.Stats.class), Views::stats);
        return Outboxctl.OK;
    }
}
