package dev.outbox.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.inject.Guice;
import com.google.inject.Injector;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.kernel.outbox.OutboxRecord;
import dev.outbox.migrations.DatabaseMigrations;
import dev.outbox.persistence.outbox.OutboxStore;
import dev.outbox.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.ibatis.mapping.BoundSql;
import org.apache.ibatis.mapping.ParameterMapping;
import org.apache.ibatis.session.SqlSessionFactory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The relay's claim keeps its plan whatever the planner's statistics say (issue 12). A new
 * deployment's first burst meets a table that was never analyzed; an outage backlog meets
 * statistics taken while the table was nearly empty. In both the planner used to guess "a few
 * dozen pending rows", scan every due row, run the per-aggregate order probe for each and sort
 * them (290 ms for 512 rows of a 50k backlog, against 10 ms). Each case here starts from a schema
 * of its own, freshly migrated, so no statistics from earlier tests leak in, lays down a 20,000-row
 * backlog in which a third of the rows are held back by strict ordering, and asks PostgreSQL for
 * the plan of the exact statement MyBatis sends.
 */
class ClaimPlanIT {
    private static final TestDatabase DB = TestDatabase.get();
    private static final String SCHEMA = "claim_plan_it";
    private static final String CLAIM = "dev.outbox.persistence.outbox.OutboxMapper.claimPending";
    private static final int ORDERS = 15_000;

    enum Statistics {
        /** migrated and loaded, never analyzed: a new deployment's first burst */
        NEVER_ANALYZED,
        /** analyzed while empty, then the backlog landed: statistics that describe a small table */
        ANALYZED_WHILE_EMPTY,
        /** analyzed after the backlog landed: what the old plan needed to be fast */
        FRESH
    }

    @ParameterizedTest
    @EnumSource(Statistics.class)
    void theClaimWalksThePendingIndexInDueOrder(Statistics statistics) throws Exception {
        try (HikariDataSource pool = freshSchema()) {
            try (Connection c = pool.getConnection();
                    Statement s = c.createStatement()) {
                if (statistics == Statistics.ANALYZED_WHILE_EMPTY) {
                    s.execute("ANALYZE message_outbox");
                }
                s.execute(backlog());
                if (statistics == Statistics.FRESH) {
                    s.execute("ANALYZE message_outbox");
                }
                try (ResultSet rs = s.executeQuery("SELECT c.reltuples, (SELECT count(*) FROM pg_stats"
                        + " WHERE schemaname = '" + SCHEMA + "' AND tablename = 'message_outbox')"
                        + " FROM pg_class c WHERE c.oid = 'message_outbox'::regclass")) {
                    rs.next();
                    // what the planner believes: never analyzed (-1), an empty table (0), or the backlog
                    double believedRows = statistics == Statistics.NEVER_ANALYZED
                            ? -1
                            : statistics == Statistics.ANALYZED_WHILE_EMPTY ? 0 : ORDERS * 3 / 2;
                    assertEquals(believedRows, rs.getDouble(1), 1.0, "pg_class.reltuples");
                    assertEquals(statistics == Statistics.FRESH, rs.getLong(2) > 0, "column statistics present");
                }
            }
            Injector injector = Guice.createInjector(new PersistenceModule(pool, Duration.ofSeconds(30)));
            List<JsonNode> nodes = planNodes(pool, injector.getInstance(SqlSessionFactory.class));

            List<String> shapes = nodes.stream()
                    .map(n -> n.path("Node Type").asText()
                            + (n.has("Index Name")
                                    ? " using " + n.get("Index Name").asText()
                                    : "")
                            + (n.has("Relation Name")
                                    ? " on " + n.get("Relation Name").asText()
                                    : ""))
                    .toList();
            assertTrue(
                    nodes.stream().noneMatch(n -> n.path("Node Type").asText().equals("Sort")),
                    "no sort of the due rows: " + shapes);
            assertTrue(
                    nodes.stream().noneMatch(n -> n.path("Node Type").asText().equals("Seq Scan")),
                    "no whole-table scan: " + shapes);
            assertTrue(
                    nodes.stream()
                            .noneMatch(n -> n.path("Node Type").asText().equals("Bitmap Index Scan")
                                    && n.path("Index Name").asText().equals("message_outbox_pending_idx")),
                    "no bitmap of every due row: " + shapes);
            assertTrue(
                    nodes.stream()
                            .anyMatch(n -> n.path("Node Type").asText().equals("Index Scan")
                                    && n.path("Index Name").asText().equals("message_outbox_pending_idx")),
                    "the due rows come from the pending index in due order: " + shapes);

            // and the statement still does its job: 512 rows, none held back by an earlier version
            List<OutboxRecord> claimed = injector.getInstance(OutboxStore.class).claim("claim-plan-it", 512);
            assertEquals(512, claimed.size());
            assertTrue(claimed.stream().allMatch(r -> r.aggregateVersion() == 1), "only version 1s are claimable");
        } finally {
            DB.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
        }
    }

    /**
     * The operator's searches and the aggregate view read indexes, not the table, although leased
     * rows are left out of the search indexes (V9): a second branch reads those through the index
     * of leased rows, and the results still hold them.
     */
    @org.junit.jupiter.api.Test
    void searchesFindLeasedRowsThroughIndexes() throws Exception {
        try (HikariDataSource pool = freshSchema()) {
            try (Connection c = pool.getConnection();
                    Statement s = c.createStatement()) {
                s.execute(backlog());
                s.execute("UPDATE message_outbox SET correlation_id = 'corr-' || aggregate_id, tenant_id = 'tenant-1'");
                s.execute("ANALYZE message_outbox");
            }
            Injector injector = Guice.createInjector(new PersistenceModule(pool, Duration.ofSeconds(30)));
            List<OutboxRecord> leased = injector.getInstance(OutboxStore.class).claim("claim-plan-it", 512);
            OutboxRecord one = leased.get(leased.size() / 2);
            SqlSessionFactory sessions = injector.getInstance(SqlSessionFactory.class);
            var ops = injector.getInstance(dev.outbox.persistence.ops.OpsMapper.class);
            var outbox = injector.getInstance(dev.outbox.persistence.outbox.OutboxMapper.class);

            var byCorrelation = query(null, "corr-" + one.aggregateId(), null);
            var byAggregate = query(one.aggregateId(), null, null);
            var newest = query(null, null, null);
            var byTenant = query(null, null, "tenant-1");
            for (var q : List.of(byCorrelation, byAggregate, newest, byTenant)) {
                List<String> shapes =
                        shapes(planNodes(pool, sessions, "dev.outbox.persistence.ops.OpsMapper.search", q));
                assertTrue(shapes.stream().noneMatch(x -> x.startsWith("Seq Scan")), "search " + q + ": " + shapes);
            }
            List<String> aggregatePlan = shapes(planNodes(
                    pool,
                    sessions,
                    "dev.outbox.persistence.outbox.OutboxMapper.findByAggregate",
                    Map.of("aggregateType", "order", "aggregateId", one.aggregateId())));
            assertTrue(
                    aggregatePlan.stream().noneMatch(x -> x.startsWith("Seq Scan")),
                    "aggregate view: " + aggregatePlan);

            // and the leased row is found by every route
            List<OutboxRecord> correlated = ops.search(byCorrelation);
            assertTrue(correlated.stream().anyMatch(r -> r.id().equals(one.id())), "the leased row by correlation id");
            assertTrue(correlated.stream().allMatch(r -> r.aggregateId().equals(one.aggregateId())), "only its own");
            assertTrue(ops.search(byAggregate).stream().anyMatch(r -> r.id().equals(one.id())));
            assertTrue(outbox.findByAggregate("order", one.aggregateId()).stream()
                    .anyMatch(r -> r.id().equals(one.id()) && r.is(dev.outbox.kernel.outbox.OutboxStatus.IN_PROGRESS)));
            List<OutboxRecord> page = ops.search(newest);
            assertEquals(50, page.size());
            for (int i = 1; i < page.size(); i++) {
                assertTrue(page.get(i - 1).createdAt().compareTo(page.get(i).createdAt()) >= 0, "newest first");
            }
        } finally {
            DB.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
        }
    }

    /**
     * The stats' count of the finished statuses (the console's overview asks every 5 s) walks only
     * their partial indexes, a bounded number of entries, however many published rows the table
     * holds: never the table, where published rows are most of it.
     */
    @org.junit.jupiter.api.Test
    void finishedCountsWalkOnlyTheirPartialIndexes() throws Exception {
        try (HikariDataSource pool = freshSchema()) {
            try (Connection c = pool.getConnection();
                    Statement s = c.createStatement()) {
                s.execute("ANALYZE message_outbox");
                s.execute(backlog());
                s.execute("UPDATE message_outbox SET status = 'PUBLISHED', published_at = now()"
                        + " WHERE aggregate_version = 1 OR aggregate_id LIKE '%7'");
                s.execute("UPDATE message_outbox SET status = 'CANCELLED', cancelled_at = now(),"
                        + " last_error_code = 'OPERATOR' WHERE status = 'PENDING' AND aggregate_id LIKE '%3'");
            }
            Injector injector = Guice.createInjector(new PersistenceModule(pool, Duration.ofSeconds(30)));
            SqlSessionFactory sessions = injector.getInstance(SqlSessionFactory.class);
            for (String statistics : List.of("analyzed while empty", "analyzed")) {
                if (statistics.equals("analyzed")) {
                    DB.execute("ANALYZE " + SCHEMA + ".message_outbox");
                }
                List<String> plan = shapes(planNodes(
                        pool,
                        sessions,
                        "dev.outbox.persistence.ops.OpsMapper.finishedCounts",
                        Map.of("limit", 10_001)));
                assertTrue(
                        plan.contains("Index Only Scan using message_outbox_published_at_idx on message_outbox")
                                && plan.contains(
                                        "Index Only Scan using message_outbox_cancelled_at_idx on message_outbox")
                                && plan.stream().noneMatch(x -> x.startsWith("Seq Scan")),
                        "finished counts, " + statistics + ": " + plan);
            }
            var counts = injector.getInstance(dev.outbox.persistence.ops.OpsMapper.class)
                    .finishedCounts(10_001);
            assertEquals(10_001, counts.published(), "counted up to the limit: " + counts);
            assertTrue(counts.publishedEstimate() > 10_001, "the index's estimate stands in above it: " + counts);
        } finally {
            DB.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
        }
    }

    private static dev.outbox.persistence.ops.OutboxQuery query(
            String aggregateId, String correlationId, String tenantId) {
        return new dev.outbox.persistence.ops.OutboxQuery(
                null,
                null,
                aggregateId == null ? null : "order",
                aggregateId,
                correlationId,
                tenantId,
                null,
                null,
                null,
                null,
                null,
                50);
    }

    private static List<String> shapes(List<JsonNode> nodes) {
        return nodes.stream()
                .map(n -> n.path("Node Type").asText()
                        + (n.has("Index Name") ? " using " + n.get("Index Name").asText() : "")
                        + (n.has("Relation Name")
                                ? " on " + n.get("Relation Name").asText()
                                : ""))
                .toList();
    }

    /**
     * A schema of this test's own, freshly migrated, so no statistics of earlier tests leak in,
     * with autovacuum off for the outbox table: it must not analyze behind the test's back, each
     * case is one state of the statistics.
     */
    private static HikariDataSource freshSchema() throws Exception {
        DB.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
        DB.execute("CREATE SCHEMA " + SCHEMA);
        String url = DB.url() + (DB.url().contains("?") ? "&" : "?") + "currentSchema=" + SCHEMA;
        HikariDataSource pool = DataSources.create(DatabaseConfig.of(url, DB.user(), DB.password(), "claim-plan-it")
                .withPoolSize(2)
                .withCustomPlans());
        try {
            DatabaseMigrations.migrate(pool);
            try (Connection c = pool.getConnection();
                    Statement s = c.createStatement()) {
                s.execute("ALTER TABLE message_outbox SET (autovacuum_enabled = false)");
            }
            return pool;
        } catch (Exception | Error e) {
            pool.close();
            throw e;
        }
    }

    /**
     * {@code ORDERS} orders placed, every second one also captured: the captures (version 2) must
     * wait for their order's version 1, so the claim has to skip them.
     */
    private static String backlog() {
        return "INSERT INTO message_outbox (aggregate_type, aggregate_id, aggregate_version, message_type,"
                + " exchange_name, routing_key, payload)"
                + " SELECT 'order', 'order-' || g, v, CASE v WHEN 1 THEN 'order.created' ELSE 'payment.captured' END,"
                + " 'orders.events', 'order.created', jsonb_build_object('orderId', 'order-' || g)"
                + " FROM generate_series(1, " + ORDERS + ") g,"
                + " LATERAL (SELECT 1 AS v UNION ALL SELECT 2 WHERE g % 2 = 0) versions ORDER BY g, v";
    }

    /**
     * The plan of the claim exactly as MyBatis sends it: the statement's SQL from the mapper, the
     * same SET LOCALs first, in one transaction, parameters bound like MyBatis binds them.
     */
    private static List<JsonNode> planNodes(HikariDataSource pool, SqlSessionFactory sessions) throws Exception {
        return planNodes(
                pool,
                sessions,
                CLAIM,
                Map.of("relayId", "claim-plan-it", "limit", 512, "unorderedTypes", new String[0]));
    }

    private static List<JsonNode> planNodes(
            HikariDataSource pool, SqlSessionFactory sessions, String statement, Object params) throws Exception {
        var configuration = sessions.getConfiguration();
        BoundSql bound = configuration.getMappedStatement(statement).getBoundSql(params);
        // the statement's own settings (SET LOCAL ...;) go first, as sent; a RESET after it is not explained
        String explained = bound.getSql().strip();
        StringBuilder settings = new StringBuilder();
        while (explained.regionMatches(true, 0, "SET ", 0, 4)) {
            int end = explained.indexOf(';');
            settings.append(explained, 0, end + 1).append(' ');
            explained = explained.substring(end + 1).strip();
        }
        explained = explained.split(";\\s*RESET\\b", 2)[0];
        var meta = configuration.newMetaObject(params);
        try (Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            if (!settings.isEmpty()) {
                try (Statement s = c.createStatement()) {
                    s.execute(settings.toString());
                }
            }
            try (PreparedStatement ps = c.prepareStatement("EXPLAIN (FORMAT JSON) " + explained)) {
                int i = 1;
                for (ParameterMapping m : bound.getParameterMappings()) {
                    String property = m.getProperty();
                    bind(
                            c,
                            ps,
                            i++,
                            bound.hasAdditionalParameter(property)
                                    ? bound.getAdditionalParameter(property)
                                    : meta.getValue(property));
                }
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    JsonNode plan =
                            new ObjectMapper().readTree(rs.getString(1)).get(0).get("Plan");
                    List<JsonNode> nodes = new ArrayList<>();
                    collect(plan, nodes);
                    return nodes;
                }
            } finally {
                c.rollback();
            }
        }
    }

    private static void bind(Connection c, PreparedStatement ps, int i, Object value) throws SQLException {
        if (value instanceof String[] array) {
            ps.setArray(i, c.createArrayOf("text", array));
        } else {
            ps.setObject(i, value);
        }
    }

    private static void collect(JsonNode node, List<JsonNode> into) {
        into.add(node);
        for (JsonNode child : node.path("Plans")) {
            collect(child, into);
        }
    }
}
