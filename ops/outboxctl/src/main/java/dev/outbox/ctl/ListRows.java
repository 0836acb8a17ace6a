package dev.outbox.ctl;

import static dev.outbox.ctl.Commands.str;
import static dev.outbox.ctl.Commands.upper;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.outbox.ctl.Commands.Base;
import dev.outbox.ops.views.OpsViews;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
        name = "list",
        mixinStandardHelpOptions = true,
        description = {
            "Search outbox messages, newest first.",
            "Example: outboxctl list --status PARKED --error-code UNROUTABLE --from 2h"
        })
final class ListRows extends Base {
    @Option(
            names = "--status",
            paramLabel = "STATUS",
            description = "PENDING, IN_PROGRESS, PUBLISHED, RETRYABLE_FAILED, PARKED or CANCELLED")
    String status;

    @Option(names = "--aggregate-type", paramLabel = "TYPE", description = "e.g. order")
    String aggregateType;

    @Option(names = "--aggregate-id", paramLabel = "ID", description = "e.g. the order id")
    String aggregateId;

    @Option(
            names = "--correlation-id",
            paramLabel = "ID",
            description = "the X-Correlation-Id of the request that wrote it")
    String correlationId;

    @Option(names = "--tenant", paramLabel = "TENANT", description = "tenant id")
    String tenant;

    @Mixin
    FilterOptions filter;

    @Option(names = "--limit", paramLabel = "N", description = "rows per page, 1-500 (default 50; 500 with --all)")
    Integer limit;

    @Option(names = "--after", paramLabel = "CURSOR", description = "the cursor a previous page printed")
    String after;

    @Option(names = "--all", description = "follow the cursors and print every matching row")
    boolean all;

    @Override
    int run(OpsClient client, PrintWriter out, PrintWriter err) {
        Map<String, String> q = OpsClient.params(
                "status",
                upper(status),
                "messageType",
                null,
                "aggregateType",
                aggregateType,
                "aggregateId",
                aggregateId,
                "correlationId",
                correlationId,
                "tenantId",
                tenant);
        filter.putInto(q);
        q.put("limit", str(limit == null && all ? Integer.valueOf(500) : limit));
        List<OpsClient.Answer<OpsViews.Page>> pages = new ArrayList<>();
        List<OpsViews.Row> rows = new ArrayList<>();
        String cursor = after;
        String next;
        Set<String> seen = new HashSet<>();
        do {
            Map<String, String> query = new LinkedHashMap<>(q);
            query.put("after", cursor);
            OpsClient.Answer<OpsViews.Page> answer = client.get("/ops/outbox", query, OpsViews.Page.class);
            pages.add(answer);
            OpsViews.Page page = answer.view();
            rows.addAll(page.items());
            next = page.next();
            // a cursor seen before would loop forever: stop rather than trust it
            cursor = next != null && seen.add(next) ? next : null;
        } while (all && cursor != null);

        if (json()) {
            if (all) {
                // the rows as the server sent them, fields this CLI does not know included
                ObjectNode merged = OpsClient.JSON.createObjectNode();
                ArrayNode items = merged.putArray("items");
                pages.forEach(p -> p.json().path("items").forEach(items::add));
                merged.putNull("next");
                printJson(out, merged);
            } else {
                printJson(out, pages.get(0).json());
            }
            return Outboxctl.OK;
        }
        out.print(Views.list(rows));
        if (!rows.isEmpty()) {
            out.println(rows.size() + " message(s)"
                    + (!all && next != null ? "; more match: add --after " + next + " (or --all)" : ""));
        }
        return Outboxctl.OK;
    }
}
