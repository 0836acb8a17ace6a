package dev.outbox.ctl;

import com.fasterxml.jackson.databind.JsonNode;
import dev.outbox.ctl.Commands.Base;
import java.io.PrintWriter;
import picocli.CommandLine.Command;

@Command(
        name = "reconcile",
        mixinStandardHelpOptions = true,
        description = "Orders missing events, expired leases, blocked aggregates, side effects left pending.")
final class Reconcile extends Base {
    @Override
    int run(OpsClient client, PrintWriter out, PrintWriter err) {
        JsonNode r = client.get("/ops/outbox/reconcile");
        print(out, r, Views::reconcile);
        return Outboxctl.OK;
    }
}
