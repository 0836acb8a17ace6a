package dev.outbox.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;

import dev.outbox.kernel.outbox.Codes;
import dev.outbox.kernel.outbox.ErrorCode;
import dev.outbox.kernel.outbox.OutboxRecord;
import dev.outbox.kernel.outbox.OutboxStatus;
import dev.outbox.persistence.metrics.OutboxGauges;
import dev.outbox.persistence.ops.OpsMapper;
import dev.outbox.persistence.ops.OutboxQuery;
import dev.outbox.persistence.ops.OutboxStatsReader;
import dev.outbox.persistence.outbox.OutboxMapper;
import dev.outbox.persistence.outbox.OutboxStore;
import dev.outbox.testkit.TestDatabase;
import dev.outbox.testkit.gen.Generators;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.ibatis.session.SqlSessionFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;
import org.quicktheories.generators.SourceDSL;

/**
 * Statuses and error codes are read as the text they are stored as (issue 42): rows written by SQL
 * with any code-shaped status and error code, this version's and a newer version's alike, go
 * through every read of the outbox (the claim, the lookups by id and by aggregate, the operators'
 * search, the stats and the gauges) without an exception, each read back with its own text; the
 * claim takes exactly the due rows in a status it knows whatever their error code, and never a row
 * in a status it does not know, which the stats and the gauges count under its own name. The
 * database's checks take exactly the values of that shape ({@link Codes#SHAPE}). A failure prints
 * QuickTheories' seed, which {@code -DQT_SEED=<seed>} replays.
 */
class CodesAsTextIT {
    @RegisterExtension
    static final StoreHarness STORE = new StoreHarness("codes-as-text-it", 4);

    private static final TestDatabase DB = StoreHarness.DB;
    private static final List<String> STATUSES =
            Stream.of(OutboxStatus.values()).map(Enum::name).toList();
    private static final List<String> ERROR_CODES =
            Stream.of(ErrorCode.values()).map(Enum::name).toList();
    private static OutboxStore store;
    private static OutboxMapper mapper;
    private static OpsMapper ops;
    private static OutboxStatsReader stats;

    /** A row as written by SQL: its status and its last error code (null for none). */
    record Row(String status, String code) {
        boolean claimable() {
            return (status.equals("PENDING") || status.equals("RETRYABLE_FAILED")) && !"RELAY_DIED".equals(code);
        }
    }

    @BeforeAll
    static void start() {
        store = STORE.get(OutboxStore.class);
        mapper = STORE.get(OutboxMapper.class);
        ops = STORE.get(OpsMapper.class);
        stats = STORE.get(OutboxStatsReader.class);
    }

    /** This version's statuses and error codes, and a newer version's (any other value of the shape). */
    private static Gen<Row> rows() {
        Gen<String> statuses = Generate.pick(STATUSES).mix(Generators.code(), 40);
        Gen<String> codes = Generate.pick(ERROR_CODES).mix(Generators.code(), 50);
        // one row in four without a code, where its status allows it (failed rows say why, V1)
        return statuses.zip(codes, Row::new)
                .zip(
                        SourceDSL.integers().between(0, 3),
                        (r, n) -> n == 0
                                        && !r.status().equals("RETRYABLE_FAILED")
                                        && !r.status().equals("PARKED")
                                ? new Row(r.status(), null)
                                : r);
    }

    @Test
    void everyReadCarriesEveryShapedStatusAndCodeAsText() {
        qt().withExamples(200)
                .forAll(SourceDSL.lists().of(rows()).ofSizeBetween(1, 8))
                .checkAssert(CodesAsTextIT::readBackAsWritten);
    }

    private static void readBackAsWritten(List<Row> rows) {
        DB.update("DELETE FROM message_outbox");
        String aggregate = "codes-" + UUID.randomUUID();
        Map<UUID, Row> written = new LinkedHashMap<>();
        for (Row r : rows) {
            written.put(insert(aggregate, r), r);
        }
        Set<UUID> claimable = written.entrySet().stream()
                .filter(e -> e.getValue().claimable())
                .map(Map.Entry::getKey)
                .collect(Collectors.toSet());

        List<OutboxRecord> claimed = store.claim("codes-relay", 100);
        assertEquals(claimable, ids(claimed), "claimed from " + rows);
        Map<UUID, Row> now = new LinkedHashMap<>();
        written.forEach((id, r) -> now.put(id, claimable.contains(id) ? new Row("IN_PROGRESS", r.code()) : r));
        for (OutboxRecord c : claimed) {
            assertEquals(now.get(c.id()), new Row(c.status(), c.lastErrorCode()), "claimed " + c.id());
        }
        Map<UUID, OutboxRecord> found = new LinkedHashMap<>();
        for (UUID id : written.keySet()) {
            OutboxRecord r = store.find(id).orElseThrow();
            assertEquals(now.get(id), new Row(r.status(), r.lastErrorCode()), "found " + id);
            assertEquals(OutboxStatus.named(r.status()), r.knownStatus());
            assertEquals(ErrorCode.named(r.lastErrorCode()), r.knownErrorCode());
            found.put(id, r);
        }
        assertEquals(
                Set.copyOf(found.values()),
                Set.copyOf(mapper.findByAggregate("order", aggregate)),
                "every version of the aggregate");
        assertEquals(Set.copyOf(found.values()), Set.copyOf(ops.search(query(null, 100))), "the operators' search");
        for (String status : Set.copyOf(now.values().stream().map(Row::status).toList())) {
            assertEquals(
                    now.entrySet().stream()
                            .filter(e -> e.getValue().status().equals(status))
                            .map(Map.Entry::getKey)
                            .collect(Collectors.toSet()),
                    ids(ops.search(query(status, 100))),
                    "the operators' search by status " + status);
        }

        Map<String, Long> unknown = counts(now.values().stream()
                .filter(r -> OutboxStatus.named(r.status()).isEmpty())
                .map(Row::status));
        Map<String, Long> parked = counts(
                now.values().stream().filter(r -> r.status().equals("PARKED")).map(Row::code));
        OutboxStatsReader.Snapshot snapshot = stats.read();
        assertEquals(unknown, new TreeMap<>(snapshot.unknownStatuses()), "unknown statuses of " + now.values());
        assertEquals(parked, new TreeMap<>(snapshot.parkedByErrorCode()), "parked by code of " + now.values());
        assertEquals(
                counts(now.values().stream().map(Row::status)).getOrDefault("PENDING", 0L),
                snapshot.stats().pending());

        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        OutboxGauges gauges = OutboxGauges.register(registry, stats, Duration.ofHours(1));
        gauges.current();
        unknown.forEach((status, n) -> assertEquals(
                (double) n,
                registry.get("outbox.unknown_status.count")
                        .tag("status", status)
                        .gauge()
                        .value(),
                "gauge of status " + status));
        for (String code :
                Stream.concat(ERROR_CODES.stream(), parked.keySet().stream()).collect(Collectors.toSet())) {
            assertEquals(
                    (double) parked.getOrDefault(code, 0L),
                    registry.get("outbox.parked.count")
                            .tag("error_code", code)
                            .gauge()
                            .value(),
                    "gauge of parked " + code);
        }
        assertEquals(
                unknown.keySet(),
                registry.find("outbox.unknown_status.count").gauges().stream()
                        .map(g -> g.getId().getTag("status"))
                        .collect(Collectors.toSet()),
                "a series for each unknown status, none for a known one");
    }

    @Test
    void aNewerVersionsStatusAndCodeAreScrapedUnderTheirOwnLabels() {
        insert("scraped-" + UUID.randomUUID(), new Row("ARCHIVED", null));
        insert("scraped-" + UUID.randomUUID(), new Row("ARCHIVED", "FUTURE_727"));
        insert("scraped-" + UUID.randomUUID(), new Row("PARKED", "FUTURE_727"));
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        OutboxGauges.register(registry, stats, Duration.ZERO);
        // the first snapshot that holds a new status or code gives it its series, in the scrape after
        registry.scrape();
        String text = registry.scrape();
        assertTrue(text.contains("outbox_unknown_status_count{status=\"ARCHIVED\"} 2"), text);
        assertTrue(text.contains("outbox_parked_count{error_code=\"FUTURE_727\"} 1"), text);
        assertTrue(text.contains("outbox_parked_count{error_code=\"UNROUTABLE\"} 0"), text);
        assertTrue(text.contains("outbox_pending_count 0"), text);
    }

    /**
     * The checks take a status or error code exactly when it has the shape: any text (NUL aside,
     * which no text column holds), shaped values and near misses of them.
     */
    @Test
    void theChecksTakeExactlyTheShapedValues() {
        UUID row = insert("checks-" + UUID.randomUUID(), new Row("PARKED", "NACKED"));
        DB.update("UPDATE message_outbox SET published_at = now(), cancelled_at = now() WHERE id = ?", row);
        for (String v : List.of("", "archived", "A".repeat(41), "_A", "7A", "A-B", "A B", "ARCHIVED\n", "ÄRCHIVED")) {
            assertFalse(stored("last_error_code", v, row), v);
            assertFalse(stored("status", v, row), v);
        }
        for (String v : List.of("A", "FUTURE_727", "A" + "_".repeat(39), "Z9")) {
            assertTrue(stored("last_error_code", v, row), v);
            assertTrue(stored("status", v, row), v);
        }
        Gen<String> nearMisses = Generators.code()
                .map(c -> c.toLowerCase(java.util.Locale.ROOT))
                .mix(Generators.code().map(c -> c + "_".repeat(40)), 20)
                .mix(Generators.code().map(c -> " " + c), 20);
        Gen<String> values = Generators.code()
                .mix(nearMisses, 40)
                .mix(Generators.text(0, 45).map(t -> t.replace('\u0000', 'x')), 30);
        qt().withExamples(500).forAll(values).checkAssert(v -> {
            assertEquals(Codes.shaped(v), stored("last_error_code", v, row), "last_error_code " + v);
            if (!v.equals("IN_PROGRESS")) { // a leased row needs its lease: another check
                assertEquals(Codes.shaped(v), stored("status", v, row), "status " + v);
            }
        });
    }

    /**
     * The count of rows in unknown statuses walks its partial index (V16), never the table, over a
     * table of finished and waiting rows, before its statistics describe them and after. The plan is
     * asked for the exact statement MyBatis sends: its settings run first, in the same transaction.
     */
    @Test
    void unknownStatusesAreCountedThroughTheirPartialIndex() throws SQLException {
        DB.update("INSERT INTO message_outbox (aggregate_type, aggregate_id, message_type, exchange_name, routing_key,"
                + " payload, status, published_at) SELECT 'plan', g::text, 'order.created', 'orders.events',"
                + " 'order.created', '{}'::jsonb, CASE WHEN g % 4 = 0 THEN 'PENDING' ELSE 'PUBLISHED' END, now()"
                + " FROM generate_series(1, 20000) g");
        insert("plan-archived", new Row("ARCHIVED", null));
        String sql = STORE.get(SqlSessionFactory.class)
                .getConfiguration()
                .getMappedStatement("dev.outbox.persistence.ops.OpsMapper.unknownStatusCounts")
                .getBoundSql(null)
                .getSql();
        List<String> parts = Stream.of(sql.split(";")).map(String::strip).toList();
        String select =
                parts.stream().filter(p -> p.startsWith("SELECT")).findFirst().orElseThrow();
        for (boolean analyzed : new boolean[] {false, true}) {
            if (analyzed) {
                DB.execute("ANALYZE message_outbox");
            }
            List<String> plan = new ArrayList<>();
            try (Connection c = DB.dataSource().getConnection();
                    Statement s = c.createStatement()) {
                c.setAutoCommit(false);
                try {
                    for (String setting : parts.subList(0, parts.indexOf(select))) {
                        s.execute(setting);
                    }
                    try (ResultSet rs = s.executeQuery("EXPLAIN " + select)) {
                        while (rs.next()) {
                            plan.add(rs.getString(1));
                        }
                    }
                } finally {
                    c.rollback();
                    c.setAutoCommit(true);
                }
            }
            String text = String.join("\n", plan);
            assertTrue(
                    text.contains("Index Only Scan using message_outbox_later_status_idx"),
                    (analyzed ? "analyzed" : "not analyzed") + ":\n" + text);
        }
        assertEquals(Map.of("ARCHIVED", 1L), stats.read().unknownStatuses());
    }

    /** Writes {@code value} into {@code column} of the row: true if stored, false if a check refused it. */
    private static boolean stored(String column, String value, UUID row) {
        try {
            DB.update("UPDATE message_outbox SET " + column + " = ? WHERE id = ?", value, row);
            return true;
        } catch (IllegalStateException e) {
            if (e.getCause() instanceof SQLException sql && "23514".equals(sql.getSQLState())) {
                return false;
            }
            throw e;
        }
    }

    /** Inserts a due row of {@code aggregate} (no version) in the row's status, with what that status needs. */
    private static UUID insert(String aggregate, Row r) {
        UUID id = UUID.randomUUID();
        boolean leased = r.status().equals("IN_PROGRESS");
        DB.update(
                "INSERT INTO message_outbox (id, aggregate_type, aggregate_id, message_type, exchange_name, routing_key,"
                        + " payload, status, last_error_code, next_attempt_at, created_at, published_at, cancelled_at,"
                        + " locked_by, locked_at, lease_token)"
                        + " VALUES (?, 'order', ?, 'order.created', 'orders.events', 'order.created', '{}'::jsonb, ?, ?,"
                        + " now() - interval '1 second', clock_timestamp(),"
                        + " CASE WHEN ? = 'PUBLISHED' THEN now() END, CASE WHEN ? = 'CANCELLED' THEN now() END,"
                        + " CASE WHEN ? THEN 'gone-relay' END, CASE WHEN ? THEN now() END,"
                        + " CASE WHEN ? THEN nextval('message_outbox_lease_token_seq') END)",
                id,
                aggregate,
                r.status(),
                r.code(),
                r.status(),
                r.status(),
                leased,
                leased,
                leased);
        return id;
    }

    private static OutboxQuery query(String status, int limit) {
        return new OutboxQuery(status, null, null, null, null, null, null, null, null, null, null, limit);
    }

    private static Set<UUID> ids(List<OutboxRecord> rows) {
        return rows.stream().map(OutboxRecord::id).collect(Collectors.toSet());
    }

    private static Map<String, Long> counts(Stream<String> values) {
        return values.collect(Collectors.groupingBy(v -> v, TreeMap::new, Collectors.counting()));
    }
}
