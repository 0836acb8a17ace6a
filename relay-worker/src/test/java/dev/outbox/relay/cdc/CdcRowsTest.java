package dev.outbox.relay.cdc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.outbox.kernel.outbox.ErrorCode;
import dev.outbox.kernel.outbox.OutboxRecord;
import dev.outbox.kernel.outbox.OutboxStatus;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A row from the WAL carries its status and last error code as the text they are, as the polling
 * read does: a newer version's status or code is data, not a row that fails to decode (which
 * stopped the stream, issue 42).
 */
class CdcRowsTest {
    private static final List<String> COLUMNS = List.of(
            "id",
            "aggregate_type",
            "aggregate_id",
            "aggregate_version",
            "message_type",
            "message_version",
            "exchange_name",
            "routing_key",
            "payload",
            "headers",
            "status",
            "attempt_count",
            "next_attempt_at",
            "last_error_code",
            "last_error_message",
            "created_at",
            "locked_at",
            "locked_by",
            "lease_token",
            "published_at",
            "correlation_id",
            "causation_id",
            "trace_id",
            "tenant_id",
            "cancelled_at");

    private static OutboxRecord decoded(String status, String code) {
        List<String> values = new ArrayList<>(Arrays.asList(new String[COLUMNS.size()]));
        values.set(COLUMNS.indexOf("id"), UUID.randomUUID().toString());
        values.set(COLUMNS.indexOf("aggregate_type"), "order");
        values.set(COLUMNS.indexOf("aggregate_id"), "o-1");
        values.set(COLUMNS.indexOf("aggregate_version"), "3");
        values.set(COLUMNS.indexOf("message_type"), "order.created");
        values.set(COLUMNS.indexOf("message_version"), "1");
        values.set(COLUMNS.indexOf("exchange_name"), "orders.events");
        values.set(COLUMNS.indexOf("routing_key"), "order.created");
        values.set(COLUMNS.indexOf("payload"), "{}");
        values.set(COLUMNS.indexOf("headers"), "{}");
        values.set(COLUMNS.indexOf("status"), status);
        values.set(COLUMNS.indexOf("attempt_count"), "0");
        values.set(COLUMNS.indexOf("next_attempt_at"), "2026-12-01 19:12:46.513556+00");
        values.set(COLUMNS.indexOf("last_error_code"), code);
        values.set(COLUMNS.indexOf("created_at"), "2026-12-01 19:12:46.513556+00");
        return CdcRows.toRecord(new CdcRows.Columns(COLUMNS), values);
    }

    @Test
    void aNewerVersionsStatusAndCodeAreCarriedAsText() {
        OutboxRecord r = decoded("ARCHIVED", "FUTURE_727");
        assertEquals("ARCHIVED", r.status());
        assertEquals("FUTURE_727", r.lastErrorCode());
        assertEquals(Optional.empty(), r.knownStatus());
        assertEquals(Optional.empty(), r.knownErrorCode());
    }

    @Test
    void knownValuesKeepTheirMeaning() {
        OutboxRecord r = decoded("PENDING", "STALE_LOCK");
        assertEquals(Optional.of(OutboxStatus.PENDING), r.knownStatus());
        assertEquals(Optional.of(ErrorCode.STALE_LOCK), r.knownErrorCode());
        assertEquals(Optional.empty(), decoded("PENDING", null).knownErrorCode());
        assertNull(decoded("PENDING", null).lastErrorCode());
    }
}
