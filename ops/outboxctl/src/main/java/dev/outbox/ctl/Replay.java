package dev.outbox.ctl;

import dev.outbox.ctl.Commands.Base;
import dev.outbox.ops.views.OpsActionViews;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "replay",
        mixinStandardHelpOptions = true,
        description = {
            "Publish PUBLISHED messages again, same ids (consumers deduplicate).",
            "One message (replay ID) or every published message of an aggregate, in version order",
            "(replay --aggregate-type T --aggregate-id A)."
        })
final class Replay extends Base {
    @Parameters(paramLabel = "ID", arity = "0..1", description = "the message id")
    String id;

    @Option(names = "--aggregate-type", paramLabel = "TYPE", description = "replay a whole aggregate: its type")
    String aggregateType;

    @Option(names = "--aggregate-id", paramLabel = "ID", description = "replay a whole aggregate: its id")
    String aggregateId;

    @Option(names = "--reason", paramLabel = "TEXT", description = "why, for the audit trail")
    String reason;

    @Override
    int run(OpsClient client, PrintWriter out, PrintWriter err) {
        boolean aggregate = aggregateType != null || aggregateId != null;
        if (aggregate == (id != null)) {
            throw usage("Give either a message ID or --aggregate-type and --aggregate-id");
        }
        OpsClient.Answer<OpsActionViews.ActionResult> r;
        if (aggregate) {
            if (aggregateType == null || aggregateId == null) {
                throw usage("--aggregate-type and --aggregate-id go together");
            }
            r = client.post(
                    "/ops/outbox/replay-aggregate",
                    new OpsActionViews.ReplayAggregateRequest(aggregateType, aggregateId, reason),
                    OpsActionViews.ActionResult.class);
        } else {
            r = client.post(
                    "/ops/outbox/" + OpsClient.segment(id) + "/replay",
                    new OpsActionViews.ReasonRequest(reason),
                    OpsActionViews.ActionResult.class);
        }
        print(out, r, Views::action);
        return Outboxctl.OK;
    }
}
