package dev.outbox.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.jdbc.NewOutboxMessage;
import dev.outbox.kernel.outbox.ErrorCode;
import dev.outbox.kernel.outbox.OutboxRecord;
import dev.outbox.kernel.outbox.OutboxStatus;
import dev.outbox.persistence.outbox.Failure;
import dev.outbox.persistence.outbox.OutboxMapper;
import dev.outbox.persistence.outbox.OutboxStore;
import dev.outbox.persistence.type.InstantTypeHandler;
import dev.outbox.persistence.type.LongArrayTypeHandler;
import dev.outbox.persistence.type.StringArrayTypeHandler;
import dev.outbox.persistence.type.UuidArrayTypeHandler;
import dev.outbox.persistence.type.UuidTypeHandler;
import dev.outbox.testkit.TestDatabase;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.ibatis.builder.xml.XMLMapperBuilder;
import org.apache.ibatis.exceptions.PersistenceException;
import org.apache.ibatis.mapping.Environment;
import org.apache.ibatis.session.Configuration;
import org.apache.ibatis.session.LocalCacheScope;
import org.apache.ibatis.session.SqlSession;
import org.apache.ibatis.session.SqlSessionFactory;
import org.apache.ibatis.session.SqlSessionFactoryBuilder;
import org.apache.ibatis.transaction.jdbc.JdbcTransactionFactory;
import org.apache.ibatis.type.JdbcType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Expand, then contract, held here: in a rolling upgrade the previous version's relays and API run
 * on the schema the new version migrated, until the last of them stops. So the previous version's
 * own statements ({@code previous/OutboxMapper-1.xml}, its {@code OutboxMapper.xml} verbatim) run
 * here against the database migrated to the newest version: claim in aggregate order, the three
 * marks, the release, the stale-lease recovery, the suspect claim, the reads. A migration that
 * narrows or removes what they use fails this test; it must wait for a release the previous version
 * no longer runs beside. The rows this version writes must be readable by the previous version too
 * (this version writes no status or code the previous one lacks), and the rows a newer version may
 * write (a status or error code nobody here knows) must be readable by this one: the previous
 * version failed on them exactly as the issue measured, this one reads them as text.
 *
 * <p>The previous statements run in a MyBatis configuration of their own, set up as {@link
 * PersistenceModule} sets up the product's, on this test's pool; the mapper's namespace and the two
 * result types it names are replaced as it is loaded, by the previous version's own shapes of them
 * ({@link PreviousRecord}, {@link PreviousStaleLease}: status and error code as enums).
 */
class PreviousMappersIT {
    @RegisterExtension
    static final StoreHarness STORE = new StoreHarness("previous-mappers-it", 4);

    private static final TestDatabase DB = StoreHarness.DB;
    private static final String PREVIOUS = "previous/OutboxMapper-1.xml";
    private static SqlSessionFactory previous;
    private static OutboxStore store;

    /** The previous version's {@code OutboxRecord}: its status and last error code were enums. */
    public record PreviousRecord(
            UUID id,
            String aggregateType,
            String aggregateId,
            Long aggregateVersion,
            String messageType,
            int messageVersion,
            String exchangeName,
            String routingKey,
            String payload,
            String headers,
            OutboxStatus status,
            int attemptCount,
            Instant nextAttemptAt,
            ErrorCode lastErrorCode,
            String lastErrorMessage,
            Instant createdAt,
            Instant lockedAt,
            String lockedBy,
            Long leaseToken,
            Instant publishedAt,
            String correlationId,
            String causationId,
            String traceId,
            String tenantId) {}

    /** The previous version's {@code OutboxMapper.StaleLease}. */
    public record PreviousStaleLease(UUID id, String lockedBy, OutboxStatus status) {}

    @BeforeAll
    static void start() throws IOException {
        store = STORE.get(OutboxStore.class);
        Configuration c = new Configuration(new Environment("previous", new JdbcTransactionFactory(), STORE.pool()));
        c.setMapUnderscoreToCamelCase(true);
        c.setCacheEnabled(false);
        c.setDefaultStatementTimeout(30);
        c.setArgNameBasedConstructorAutoMapping(true);
        c.setJdbcTypeForNull(JdbcType.NULL);
        c.setLocalCacheScope(LocalCacheScope.STATEMENT);
        c.getTypeHandlerRegistry().register(UuidTypeHandler.class);
        c.getTypeHandlerRegistry().register(InstantTypeHandler.class);
        c.getTypeHandlerRegistry().register(UuidArrayTypeHandler.class);
        c.getTypeHandlerRegistry().register(LongArrayTypeHandler.class);
        c.getTypeHandlerRegistry().register(StringArrayTypeHandler.class);
        String xml;
        try (InputStream in = PreviousMappersIT.class.getClassLoader().getResourceAsStream(PREVIOUS)) {
            assertNotNull(in, PREVIOUS + " on the test class path");
            xml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        xml = replaceOnce(
                xml,
                "resultType=\"dev.outbox.persistence.outbox.OutboxMapper$StaleLease\"",
                "resultType=\"" + PreviousStaleLease.class.getName() + "\"");
        xml = replaceOnce(
                xml,
                "type=\"dev.outbox.kernel.outbox.OutboxRecord\"",
                "type=\"" + PreviousRecord.class.getName() + "\"");
        xml = replaceOnce(xml, "namespace=\"dev.outbox.persistence.outbox.OutboxMapper\"", "namespace=\"previous\"");
        new XMLMapperBuilder(
                        new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)),
                        c,
                        PREVIOUS,
                        c.getSqlFragments())
                .parse();
        previous = new SqlSessionFactoryBuilder().build(c);
    }

    private static String replaceOnce(String xml, String what, String with) {
        int at = xml.indexOf(what);
        assertTrue(at >= 0 && xml.indexOf(what, at + 1) < 0, PREVIOUS + " names " + what + " exactly once");
        return xml.replace(what, with);
    }

    /** Runs one previous statement in a transaction of its own, committed as OutboxStore commits. */
    private static <T> T inPrevious(Function<SqlSession, T> work) {
        try (SqlSession s = previous.openSession(false)) {
            try {
                T out = work.apply(s);
                s.commit(true);
                return out;
            } catch (RuntimeException e) {
                // as the previous version's @Transactional did; closing alone would reset autocommit,
                // which commits what the failed statement changed
                s.rollback(true);
                throw e;
            }
        }
    }

    /** The parameters of a fenced statement on one leased row, plus {@code more}. */
    private static Map<String, Object> fenced(String relayId, PreviousRecord leased, Object... more) {
        Map<String, Object> p = params(more);
        p.put("relayId", relayId);
        p.put("ids", new UUID[] {leased.id()});
        p.put("tokens", new Long[] {leased.leaseToken()});
        return p;
    }

    private static Map<String, Object> params(Object... keyValues) {
        Map<String, Object> p = new HashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            p.put((String) keyValues[i], keyValues[i + 1]);
        }
        return p;
    }

    private static List<PreviousRecord> previousClaim(String relayId) {
        return inPrevious(s -> s.selectList(
                "previous.claimPending",
                params(
                        "relayId",
                        relayId,
                        "limit",
                        100,
                        "unorderedTypes",
                        new String[0],
                        "livenessNamespace",
                        null,
                        "cdcSlot",
                        null)));
    }

    private static PreviousRecord previousFind(UUID id) {
        return inPrevious(s -> s.selectOne("previous.findById", params("id", id)));
    }

    private static Map<UUID, PreviousRecord> byId(List<PreviousRecord> rows) {
        return rows.stream().collect(Collectors.toMap(PreviousRecord::id, r -> r));
    }

    private static UUID previousInsert(String aggregateId, long version) {
        UUID id = UUID.randomUUID();
        NewOutboxMessage m = new NewOutboxMessage(
                id,
                "order",
                aggregateId,
                version,
                "order.created",
                1,
                "orders.events",
                "order.created",
                "{\"v\":" + version + "}",
                "{}",
                "corr-" + aggregateId,
                null,
                null,
                null);
        int inserted = inPrevious(s -> s.insert("previous.insert", m));
        assertEquals(1, inserted);
        return id;
    }

    @Test
    void thePreviousVersionsStatementsRunOnTheNewestSchema() {
        String relay = "previous-relay";
        String aggregateA = "a-" + UUID.randomUUID();
        UUID a1 = previousInsert(aggregateA, 1);
        UUID a2 = previousInsert(aggregateA, 2);
        UUID b1 = previousInsert("b-" + UUID.randomUUID(), 1);

        Map<UUID, PreviousRecord> first = byId(previousClaim(relay));
        assertEquals(Set.of(a1, b1), first.keySet(), "version 2 of a waits for version 1");
        first.values().forEach(r -> assertEquals(OutboxStatus.IN_PROGRESS, r.status()));
        assertEquals(
                List.of(a1), inPrevious(s -> s.selectList("previous.markPublished", fenced(relay, first.get(a1)))));
        assertEquals(
                List.of(b1),
                inPrevious(s -> s.selectList(
                        "previous.markParked",
                        fenced(relay, first.get(b1), "codes", new String[] {"UNROUTABLE"}, "messages", new String[] {
                            "312 NO_ROUTE"
                        }))));

        Map<UUID, PreviousRecord> second = byId(previousClaim(relay));
        assertEquals(Set.of(a2), second.keySet(), "version 1 of a is published");
        assertEquals(
                List.of(a2),
                inPrevious(s -> s.selectList(
                        "previous.markRetryableFailed",
                        fenced(
                                relay,
                                second.get(a2),
                                "codes",
                                new String[] {"NACKED"},
                                "messages",
                                new String[] {"nack"},
                                "delaysMillis",
                                new Long[] {0L}))));
        assertEquals(OutboxStatus.RETRYABLE_FAILED, previousFind(a2).status());
        assertEquals(ErrorCode.NACKED, previousFind(a2).lastErrorCode());
        assertEquals(OutboxStatus.PARKED, previousFind(b1).status());
        assertEquals(ErrorCode.UNROUTABLE, previousFind(b1).lastErrorCode());
        long blocked = inPrevious(s -> s.<Long>selectOne("previous.countBlockedAggregates"));
        assertEquals(0L, blocked);

        assertEquals(List.of(b1), inPrevious(s -> s.selectList("previous.retryNow", params("ids", new UUID[] {b1}))));
        assertEquals(OutboxStatus.PENDING, previousFind(b1).status());

        Map<UUID, PreviousRecord> third = byId(previousClaim(relay));
        assertEquals(Set.of(a2, b1), third.keySet());
        assertEquals(
                List.of(a2),
                inPrevious(s -> s.selectList(
                        "previous.releaseUnsent",
                        fenced(relay, third.get(a2), "code", "BROKER_UNAVAILABLE", "message", "connection refused"))));
        assertEquals(OutboxStatus.RETRYABLE_FAILED, previousFind(a2).status(), "attempted before, so retryable");
        assertEquals(ErrorCode.BROKER_UNAVAILABLE, previousFind(a2).lastErrorCode());

        DB.update("UPDATE message_outbox SET locked_at = now() - interval '1 hour' WHERE id = ?", b1);
        assertEquals(
                List.of(new PreviousStaleLease(b1, relay, OutboxStatus.RETRYABLE_FAILED)),
                inPrevious(s -> s.selectList(
                        "previous.releaseStaleLocks", params("leaseMillis", 60_000L, "maxAttempts", 5, "limit", 10))));
        assertEquals(ErrorCode.STALE_LOCK, previousFind(b1).lastErrorCode());

        Map<String, Object> noTypes = params("unorderedTypes", new String[0]);
        boolean due = inPrevious(s -> s.<Boolean>selectOne("previous.hasDueSuspects", noTypes));
        assertFalse(due);
        DB.update("UPDATE message_outbox SET last_error_code = 'RELAY_DIED' WHERE id = ?", a2);
        due = inPrevious(s -> s.<Boolean>selectOne("previous.hasDueSuspects", noTypes));
        assertTrue(due);
        List<PreviousRecord> suspect = inPrevious(s -> s.selectList(
                "previous.claimSuspect",
                params("relayId", relay, "unorderedTypes", new String[0], "livenessNamespace", null)));
        assertEquals(List.of(a2), suspect.stream().map(PreviousRecord::id).toList());

        inPrevious(s -> s.insert("previous.registerWaiter", params("relayId", relay)));
        assertEquals(1L, DB.count("SELECT count(*) FROM outbox_relay_waiters WHERE relay_id = ?", relay));
        inPrevious(s -> s.delete("previous.unregisterWaiter", params("relayId", relay)));
        assertEquals(0L, DB.count("SELECT count(*) FROM outbox_relay_waiters WHERE relay_id = ?", relay));

        List<PreviousRecord> versions = inPrevious(s ->
                s.selectList("previous.findByAggregate", params("aggregateType", "order", "aggregateId", aggregateA)));
        assertEquals(List.of(a1, a2), versions.stream().map(PreviousRecord::id).toList());
        assertEquals(OutboxStatus.IN_PROGRESS, versions.get(1).status(), "the suspect is leased");

        // and this version reads every row the previous one wrote, with the same words
        for (UUID id : List.of(a1, a2, b1)) {
            PreviousRecord theirs = previousFind(id);
            OutboxRecord ours = store.find(id).orElseThrow();
            assertEquals(theirs.status().name(), ours.status(), "status of " + id);
            assertEquals(
                    theirs.lastErrorCode() == null
                            ? null
                            : theirs.lastErrorCode().name(),
                    ours.lastErrorCode(),
                    "last error code of " + id);
        }
    }

    /**
     * This version writes every status and every error code it has, and the previous version reads
     * each: were a code added here, the previous version's reads would fail on it as the issue
     * measured. A version adds a code only once the version before it reads codes as text (this one
     * does, so the next may); until then the copy here is of a version that does not.
     */
    @Test
    void thePreviousVersionReadsEveryRowThisVersionWrites() {
        for (ErrorCode code : ErrorCode.values()) {
            for (boolean park : new boolean[] {true, false}) {
                UUID id = previousInsert("w-" + UUID.randomUUID(), 1);
                OutboxRecord leased = store.claim("current-relay", 100).stream()
                        .filter(r -> r.id().equals(id))
                        .findFirst()
                        .orElseThrow();
                Failure f = park
                        ? Failure.park(leased.lease(), code, "parked as " + code)
                        : Failure.retry(leased.lease(), code, "retry as " + code, java.time.Duration.ofHours(1));
                assertEquals(Set.of(id), store.recordFailures("current-relay", List.of(f)));
                PreviousRecord read = previousFind(id);
                assertEquals(code, read.lastErrorCode());
                assertEquals(park ? OutboxStatus.PARKED : OutboxStatus.RETRYABLE_FAILED, read.status());
            }
        }
        UUID published = previousInsert("p-" + UUID.randomUUID(), 1);
        OutboxRecord leased = store.claim("current-relay", 100).stream()
                .filter(r -> r.id().equals(published))
                .findFirst()
                .orElseThrow();
        assertEquals(OutboxStatus.IN_PROGRESS, previousFind(published).status());
        store.markPublished("current-relay", List.of(leased.lease()));
        assertEquals(OutboxStatus.PUBLISHED, previousFind(published).status());
    }

    /**
     * The measurement, and this version's answer to the same rows: a newer version wrote an
     * error code ({@code FUTURE_727}) and a status ({@code ARCHIVED}) that neither knows. The
     * previous version's reads fail on them, its claim included (so its relay stopped claiming
     * altogether); this version's reads carry them as text, its claim takes the due row whatever its
     * code and leaves the row in the unknown status alone.
     */
    @Test
    void aNewerVersionsCodesStoppedThePreviousVersionAndAreTextToThisOne() {
        UUID future = rawRow("f-" + UUID.randomUUID(), null, "PENDING", "FUTURE_727");
        String archivedAggregate = "z-" + UUID.randomUUID();
        UUID archived = rawRow(archivedAggregate, 1L, "ARCHIVED", null);
        UUID behindArchived = rawRow(archivedAggregate, 2L, "PENDING", null);
        UUID plain = rawRow("p-" + UUID.randomUUID(), null, "PENDING", null);

        PersistenceException code = assertThrows(PersistenceException.class, () -> previousFind(future));
        assertTrue(code.getMessage().contains("property='lastErrorCode'"), code.getMessage());
        PersistenceException status = assertThrows(PersistenceException.class, () -> previousFind(archived));
        assertTrue(status.getMessage().contains("property='status'"), status.getMessage());
        PersistenceException claim = assertThrows(PersistenceException.class, () -> previousClaim("previous-relay"));
        assertTrue(claim.getMessage().contains("property='lastErrorCode'"), claim.getMessage());
        assertEquals(
                0L,
                DB.count("SELECT count(*) FROM message_outbox WHERE status = 'IN_PROGRESS'"),
                "the failed claim was rolled back");

        List<OutboxRecord> claimed = store.claim("current-relay", 100);
        assertEquals(
                Set.of(future, plain),
                claimed.stream().map(OutboxRecord::id).collect(Collectors.toSet()),
                "the unknown status is never claimed, and the version after it waits, as behind any unfinished one");
        OutboxRecord futureRow =
                claimed.stream().filter(r -> r.id().equals(future)).findFirst().orElseThrow();
        assertEquals("FUTURE_727", futureRow.lastErrorCode());
        assertEquals(java.util.Optional.empty(), futureRow.knownErrorCode());
        OutboxRecord archivedRow = store.find(archived).orElseThrow();
        assertEquals("ARCHIVED", archivedRow.status());
        assertEquals(java.util.Optional.empty(), archivedRow.knownStatus());
        List<OutboxRecord> versions = STORE.get(OutboxMapper.class).findByAggregate("order", archivedAggregate);
        assertEquals(
                List.of("ARCHIVED", "PENDING"),
                versions.stream().map(OutboxRecord::status).toList());
        assertEquals(
                archived,
                STORE.get(dev.outbox.persistence.ops.OpsMapper.class)
                        .blockingVersion(behindArchived)
                        .id(),
                "what holds version 2 back is the row in the unknown status");

        store.markPublished("current-relay", List.of(futureRow.lease()));
        assertEquals("PUBLISHED", store.find(future).orElseThrow().status(), "this version records its own outcome");
    }

    private static UUID rawRow(String aggregateId, Long version, String status, String code) {
        UUID id = UUID.randomUUID();
        DB.update(
                "INSERT INTO message_outbox (id, aggregate_type, aggregate_id, aggregate_version, message_type,"
                        + " exchange_name, routing_key, payload, status, last_error_code, created_at)"
                        + " VALUES (?, 'order', ?, ?, 'order.created', 'orders.events', 'order.created', '{}'::jsonb,"
                        + " ?, ?, clock_timestamp())",
                id,
                aggregateId,
                version,
                status,
                code);
        return id;
    }
}
