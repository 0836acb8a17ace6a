package dev.outbox.ctl;

import dev.outbox.ctl.Commands.Base;
import dev.outbox.ops.views.OpsViews;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(
        name = "show",
        mixinStandardHelpOptions = true,
        description = "One message: status, attempts, next attempt, last error, lease, what blocks it, payload.")
final class Show extends Base {
    @Parameters(paramLabel = "ID", description = "the message id (the outbox row id, the AMQP messageId)")
    String id;

    @Override
    int run(OpsClient client, PrintWriter out, PrintWriter err) {
        print(out, client.get("/ops/outbox/" + OpsClient.segment(id), OpsViews.Row.class), Views::show);
        return Outboxctl.OK;
    }
}
