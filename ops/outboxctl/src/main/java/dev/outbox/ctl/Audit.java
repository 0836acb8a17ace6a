package dev.outbox.ctl;

import static dev.outbox.ctl.Commands.str;

import dev.outbox.ctl.Commands.Base;
import dev.outbox.ops.views.OpsActionViews;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
        name = "audit",
        mixinStandardHelpOptions = true,
        description = "Who repaired what, when and why, newest first.")
final class Audit extends Base {
    @Option(names = "--message-id", paramLabel = "ID", description = "only entries touching this message")
    String messageId;

    @Option(names = "--limit", paramLabel = "N", description = "entries, 1-500 (default 50)")
    Integer limit;

    @Option(names = "--after", paramLabel = "CURSOR", description = "the cursor a previous page printed")
    String after;

    @Override
    int run(OpsClient client, PrintWriter out, PrintWriter err) {
        OpsClient.Answer<OpsActionViews.AuditPage> answer = client.get(
                "/ops/audit",
                OpsClient.params("messageId", messageId, "limit", str(limit), "after", after),
                OpsActionViews.AuditPage.class);
        if (json()) {
            printJson(out, answer.json());
            return Outboxctl.OK;
        }
        OpsActionViews.AuditPage page = answer.view();
        out.print(Views.audit(page));
        String next = page.next();
        if (next != null) {
            out.println("more entries: add --after " + next);
        }
        return Outboxctl.OK;
    }
}
