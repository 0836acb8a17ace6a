package dev.outbox.ctl;

import com.fasterxml.jackson.databind.JsonNode;
import dev.outbox.ctl.Commands.Base;
import java.io.PrintWriter;
import picocli.CommandLine.Command;

@Command(
        name = "stats",
        mixinStandardHelpOptions = true,
        description = "Counts by status, published in the last hour, oldest pending age, parked by error code.")
final class Stats extends Base {
    @Override
    int run(OpsClient client, PrintWriter out, PrintWriter err) {
        JsonNode s = client.get("/ops/outbox/stats");
        print(out, s, Views::stats);
        return Outboxctl.OK;
    }
}
