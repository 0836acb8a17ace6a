package dev.outbox.ctl;

import static dev.outbox.ctl.Commands.str;
import static dev.outbox.ctl.Commands.upper;

import dev.outbox.ops.views.OpsActionViews;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;

/** The filter options {@code list} and {@code retry-bulk} share (a picocli mixin). */
final class FilterOptions {
    @Option(names = "--type", paramLabel = "TYPE", description = "message type, e.g. order.created")
    String type;

    @Option(names = "--error-code", paramLabel = "CODE", description = "last error code, e.g. UNROUTABLE")
    String errorCode;

    @Option(
            names = "--from",
            converter = Commands.TimeConverter.class,
            paramLabel = "TIME",
            description = "created at or after: 2026-11-30T09:00:00Z, 2026-11-30, or an age like 2h")
    Instant from;

    @Option(
            names = "--to",
            converter = Commands.TimeConverter.class,
            paramLabel = "TIME",
            description = "created before (same forms as --from)")
    Instant to;

    boolean none() {
        return type == null && errorCode == null && from == null && to == null;
    }

    /** Into a query, under the API's names. */
    void putInto(Map<String, String> target) {
        target.put("messageType", type);
        target.put("errorCode", upper(errorCode));
        target.put("createdFrom", str(from));
        target.put("createdTo", str(to));
    }

    /** A bulk retry of what the filter names; {@code status} and the rest are the command's own. */
    OpsActionViews.BulkRetryRequest retryRequest(String status, boolean dryRun, Integer limit, String reason) {
        return new OpsActionViews.BulkRetryRequest(status, upper(errorCode), type, from, to, dryRun, limit, reason);
    }

    /** For a human: "error code X", "created from T", ... */
    void describeInto(List<String> parts) {
        if (errorCode != null) {
            parts.add("error code " + upper(errorCode));
        }
        if (type != null) {
            parts.add("type " + type);
        }
        if (from != null) {
            parts.add("created from " + from);
        }
        if (to != null) {
            parts.add("created before " + to);
        }
    }
}
