package dev.outbox.testkit.rows;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The outbox's promise, checked from outside once the relay has settled: every {@code
 * PUBLISHED} row was delivered with its id as {@code messageId}; every other row is parked or
 * retryable with a code, not due yet, or held behind an unfinished earlier version of its
 * aggregate; nothing is left leased; and the plain rows were not held up by the odd ones.
 */
public final class PublicationAudit {
    /** A row that could be claimed right now: due, and no unfinished earlier version ahead of it. */
    static final String CLAIMABLE = "c.status IN ('PENDING', 'RETRYABLE_FAILED') AND c.next_attempt_at <= now()"
            + " AND (c.aggregate_version IS NULL OR NOT EXISTS (SELECT 1 FROM message_outbox p"
            + " WHERE p.aggregate_type = c.aggregate_type AND p.aggregate_id = c.aggregate_id"
            + " AND p.aggregate_version < c.aggregate_version AND p.aggregate_version IS NOT NULL"
            + " AND p.status NOT IN ('PUBLISHED', 'CANCELLED')))";

    /** What the audit found. */
    public record Verdict(
            Map<String, Long> outcomes,
            long published,
            long publishedAndDelivered,
            long deliveredNotPublished,
            Duration slowestOrdinary,
            long ordinary,
            List<String> violations) {
        public boolean holds() {
            return violations.isEmpty();
        }

        /** A Markdown summary: outcome counts and the invariants. */
        public String describe() {
            StringBuilder b = new StringBuilder();
            b.append("| outcome | rows |\n|---|---|\n");
            outcomes.forEach(
                    (k, v) -> b.append("| ").append(k).append(" | ").append(v).append(" |\n"));
            b.append("\nPUBLISHED: ")
                    .append(published)
                    .append(", delivered with their id: ")
                    .append(publishedAndDelivered)
                    .append(" (published but never delivered: ")
                    .append(published - publishedAndDelivered)
                    .append("); delivered and not PUBLISHED (a retry will publish again): ")
                    .append(deliveredNotPublished)
                    .append("\nplain rows: ")
                    .append(ordinary)
                    .append(", slowest commit -> PUBLISHED: ")
                    .append(slowestOrdinary.toMillis())
                    .append(" ms\n");
            if (!violations.isEmpty()) {
                b.append("\nVIOLATIONS:\n");
                violations.forEach(v -> b.append("- ").append(v).append('\n'));
            }
            return b.toString();
        }
    }

    private PublicationAudit() {}

    /** True when no row is leased and none could be claimed now: the relay has nothing left to do. */
    public static boolean settled(DataSource ds) throws SQLException {
        return settled(ds, "true");
    }

    /**
     * {@link #settled(DataSource)} for the rows {@code rowFilter} (SQL on the row {@code c}) picks,
     * when others share the table.
     */
    public static boolean settled(DataSource ds, String rowFilter) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT (SELECT count(*) FROM message_outbox c"
                        + " WHERE c.status = 'IN_PROGRESS' AND (" + rowFilter + ")) + (SELECT count(*)"
                        + " FROM message_outbox c WHERE " + CLAIMABLE + " AND (" + rowFilter + "))");
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1) == 0;
        }
    }

    /**
     * Audits every row against the message ids seen on a queue bound with {@code #}.
     *
     * @param ordinaryLimit how long a plain row may take from commit to {@code PUBLISHED}
     */
    public static Verdict audit(DataSource ds, Collection<String> deliveredIds, Duration ordinaryLimit)
            throws SQLException {
        return audit(ds, deliveredIds, ordinaryLimit, "true");
    }

    /**
     * {@link #audit(DataSource, Collection, Duration)} of the rows {@code rowFilter} (SQL on the
     * row {@code c}) picks; {@code deliveredIds} may hold other rows' ids too.
     */
    public static Verdict audit(
            DataSource ds, Collection<String> deliveredIds, Duration ordinaryLimit, String rowFilter)
            throws SQLException {
        Set<String> delivered = Set.copyOf(deliveredIds);
        Map<String, Long> outcomes = new TreeMap<>();
        List<String> violations = new ArrayList<>();
        long published = 0;
        long publishedAndDelivered = 0;
        long ordinary = 0;
        long slowestMicros = 0;
        Set<String> publishedIds = new java.util.HashSet<>();
        Set<String> audited = new java.util.HashSet<>();
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT c.id, c.status, c.last_error_code,"
                        + " c.aggregate_type = '" + GeneratedRows.ORDINARY_AGGREGATE_TYPE + "' AS ordinary,"
                        + " (c.next_attempt_at > now()) AS not_due,"
                        + " (" + CLAIMABLE.replace("c.status IN ('PENDING', 'RETRYABLE_FAILED') AND ", "")
                        + ") AS unblocked,"
                        + " CASE WHEN c.status = 'PUBLISHED' AND isfinite(c.created_at)"
                        + " THEN extract(epoch FROM (c.published_at - c.created_at)) * 1000000 END AS micros"
                        + " FROM message_outbox c WHERE " + rowFilter);
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                UUID id = rs.getObject("id", UUID.class);
                audited.add(id.toString());
                String status = rs.getString("status");
                String code = rs.getString("last_error_code");
                boolean isOrdinary = rs.getBoolean("ordinary");
                String outcome;
                switch (status) {
                    case "PUBLISHED" -> {
                        published++;
                        publishedIds.add(id.toString());
                        if (delivered.contains(id.toString())) {
                            publishedAndDelivered++;
                        } else {
                            violations.add("row " + id + " is PUBLISHED but was never delivered");
                        }
                        outcome = "PUBLISHED";
                        if (isOrdinary) {
                            ordinary++;
                            slowestMicros = Math.max(slowestMicros, rs.getLong("micros"));
                        }
                    }
                    case "PARKED", "RETRYABLE_FAILED" -> outcome = status + " " + code;
                    case "PENDING" -> {
                        if (rs.getBoolean("not_due")) {
                            outcome = "PENDING, not due yet";
                        } else if (!rs.getBoolean("unblocked")) {
                            outcome = "PENDING, held behind an earlier version";
                        } else {
                            outcome = "PENDING and due";
                            violations.add("row " + id + " is PENDING, due and not held: the relay left it");
                        }
                    }
                    default -> {
                        outcome = status;
                        violations.add("row " + id + " is " + status + " after the relay settled");
                    }
                }
                if (isOrdinary && !"PUBLISHED".equals(status)) {
                    violations.add("plain row " + id + " is " + status + " " + (code == null ? "" : code));
                }
                outcomes.merge(outcome, 1L, Long::sum);
            }
        }
        Duration slowest = Duration.ofNanos(slowestMicros * 1_000);
        if (slowest.compareTo(ordinaryLimit) > 0) {
            violations.add("a plain row took " + slowest.toMillis() + " ms from commit to PUBLISHED, over "
                    + ordinaryLimit.toMillis() + " ms");
        }
        long deliveredNotPublished = delivered.stream()
                .filter(d -> audited.contains(d) && !publishedIds.contains(d))
                .count();
        return new Verdict(
                outcomes, published, publishedAndDelivered, deliveredNotPublished, slowest, ordinary, violations);
    }
}
