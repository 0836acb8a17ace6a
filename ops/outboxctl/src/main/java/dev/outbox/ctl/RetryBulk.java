package dev.outbox.ctl;

import static dev.outbox.ctl.Commands.upper;

import dev.outbox.ctl.Commands.Base;
import dev.outbox.ops.views.OpsActionViews;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
        name = "retry-bulk",
        mixinStandardHelpOptions = true,
        description = {
            "Retry every PARKED / RETRYABLE_FAILED message matching a filter, in chunks.",
            "Counts first (a dry run), then retries at most that many; --dry-run only counts.",
            "Example: outboxctl retry-bulk --error-code UNROUTABLE --from 2h --dry-run"
        })
final class RetryBulk extends Base {
    static final int BAR_WIDTH = 30;

    @Mixin
    FilterOptions filter;

    @Option(names = "--status", paramLabel = "STATUS", description = "PARKED or RETRYABLE_FAILED (default: both)")
    String status;

    @Option(names = "--dry-run", description = "only count what matches; change nothing")
    boolean dryRun;

    @Option(names = "--reason", paramLabel = "TEXT", description = "why, for the audit trail")
    String reason;

    @Option(
            names = "--chunk",
            paramLabel = "N",
            defaultValue = "500",
            description = "messages per request, 1-1000 (default ${DEFAULT-VALUE})")
    int chunk;

    @Override
    int run(OpsClient client, PrintWriter out, PrintWriter err) {
        if (filter.none()) {
            throw usage("Name at least one of --error-code, --type, --from, --to");
        }
        if (chunk < 1 || chunk > 1000) {
            throw usage("--chunk must be between 1 and 1000");
        }
        OpsClient.Answer<OpsActionViews.BulkRetryResult> dry =
                client.post("/ops/outbox/retry", request(true, null), OpsActionViews.BulkRetryResult.class);
        long matched = dry.view().matched();
        if (dryRun) {
            if (json()) {
                printJson(out, dry.json());
            } else {
                out.println(matched + " message(s) match " + filter() + "; dry run, nothing changed");
            }
            return Outboxctl.OK;
        }
        long done = 0;
        long remaining = matched;
        int chunks = 0;
        List<UUID> ids = new ArrayList<>();
        Progress progress = new Progress(err, System.console() != null);
        if (matched > 0) {
            progress.show(0, matched);
        }
        // never more than the count the dry run found: rows that fail again meanwhile are not chased
        while (done < matched) {
            int limit = (int) Math.min(chunk, matched - done);
            OpsActionViews.BulkRetryResult r = client.post(
                            "/ops/outbox/retry", request(false, limit), OpsActionViews.BulkRetryResult.class)
                    .view();
            chunks++;
            int retried = r.retried();
            if (r.ids() != null) {
                ids.addAll(r.ids());
            }
            done += retried;
            remaining = r.remaining();
            progress.show(done, matched);
            if (retried == 0 || remaining == 0) {
                break;
            }
        }
        progress.end();
        if (json()) {
            printJson(out, new Summary(false, matched, done, remaining, chunks, ids));
            return Outboxctl.OK;
        }
        if (matched == 0) {
            out.println("nothing matches " + filter() + "; nothing retried");
            return Outboxctl.OK;
        }
        out.println("retried " + done + " of " + matched + " matching message(s) in " + chunks + " chunk(s)");
        if (remaining > 0) {
            out.println(remaining + " still match (failed again or new since the count): check the cause,"
                    + " then run again");
        }
        return Outboxctl.OK;
    }

    private OpsActionViews.BulkRetryRequest request(boolean dry, Integer limit) {
        return filter.retryRequest(upper(status), dry, limit, reason);
    }

    /** What {@code --json} prints after the chunks: the CLI's own account of them, not one answer. */
    record Summary(boolean dryRun, long matched, long retried, long remaining, int chunks, List<UUID> ids) {}

    private String filter() {
        List<String> parts = new ArrayList<>();
        if (status != null) {
            parts.add("status " + upper(status));
        }
        filter.describeInto(parts);
        return "(" + String.join(", ", parts) + ")";
    }

    /** The progress bar on stderr: redrawn in place on a terminal, one line per step otherwise. */
    static final class Progress {
        private final PrintWriter err;
        private final boolean redraw;
        private boolean drawn;

        Progress(PrintWriter err, boolean redraw) {
            this.err = err;
            this.redraw = redraw;
        }

        void show(long done, long total) {
            String bar = ProgressBar.render(done, total, RetryBulk.BAR_WIDTH);
            if (redraw) {
                err.print("\r" + bar);
            } else {
                err.println(bar);
            }
            err.flush();
            drawn = true;
        }

        void end() {
            if (redraw && drawn) {
                err.println();
                err.flush();
            }
        }
    }
}
