package dev.outbox.ctl;

import dev.outbox.ctl.Commands.Base;
import dev.outbox.ops.views.OpsOverviewViews;
import java.io.PrintWriter;
import picocli.CommandLine.Command;

@Command(
        name = "reconcile",
        mixinStandardHelpOptions = true,
        description = "Orders missing events, expired leases, blocked aggregates, side effects left pending.")
final class Reconcile extends Base {
    @Override
    int run(OpsClient client, PrintWriter out, PrintWriter err) {
        print(out, client.get("/ops/outbox/reconcile", OpsOverviewViews.Reconcile.class), Views::reconcile);
        return Outboxctl.OK;
    }
}
