package dev.outbox.relay.cdc;

import dev.outbox.kernel.outbox.OutboxRecord;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * An inserted {@code message_outbox} row, as pgoutput sends it (text, by column name), turned into
 * the {@link OutboxRecord} the polling relay would have read: the same mapping to AMQP follows, so
 * both modes put the same message on the wire ({@code CdcDecodingIT} compares them, row by row, for
 * generated rows). A value that does not parse (a column type changed under the relay, say) is
 * an error naming the column, not a guess. {@code status} and {@code last_error_code} are carried
 * as the text they are, as the polling relay reads them: a newer version's status or code is data,
 * not a parse failure (only a {@code PENDING} row is the stream's, {@code CdcAggregateOrder}).
 */
public final class CdcRows {
    private CdcRows() {}

    /** The table's columns by name, from its latest relation message. */
    public static final class Columns {
        private final Map<String, Integer> index = new HashMap<>();
        private final int count;

        public Columns(List<String> names) {
            for (int i = 0; i < names.size(); i++) {
                index.put(names.get(i), i);
            }
            this.count = names.size();
        }

        int of(String name) {
            Integer i = index.get(name);
            if (i == null) {
                throw new IllegalStateException("message_outbox as decoded from the WAL has no column " + name
                        + " (columns " + index.keySet() + ")");
            }
            return i;
        }

        int count() {
            return count;
        }
    }

    /** The row {@code values} (in {@code columns}' order) describe. */
    public static OutboxRecord toRecord(Columns columns, List<String> values) {
        if (values.size() != columns.count()) {
            throw new IllegalStateException(
                    "a row of " + values.size() + " values for a relation of " + columns.count() + " columns");
        }
        Row r = new Row(columns, values);
        return new OutboxRecord(
                UUID.fromString(r.required("id")),
                r.required("aggregate_type"),
                r.required("aggregate_id"),
                r.optionalLong("aggregate_version"),
                r.required("message_type"),
                Integer.parseInt(r.required("message_version")),
                r.required("exchange_name"),
                r.required("routing_key"),
                r.required("payload"),
                r.text("headers"),
                r.required("status"),
                Integer.parseInt(r.required("attempt_count")),
                timestamp(r.text("next_attempt_at")),
                r.text("last_error_code"),
                r.text("last_error_message"),
                timestamp(r.text("created_at")),
                timestamp(r.text("locked_at")),
                r.text("locked_by"),
                r.optionalLong("lease_token"),
                timestamp(r.text("published_at")),
                r.text("correlation_id"),
                r.text("causation_id"),
                r.text("trace_id"),
                r.text("tenant_id"));
    }

    private record Row(Columns columns, List<String> values) {
        String text(String column) {
            return values.get(columns.of(column));
        }

        String required(String column) {
            String v = text(column);
            if (v == null) {
                throw new IllegalStateException("message_outbox." + column + " is NULL in the WAL");
            }
            return v;
        }

        Long optionalLong(String column) {
            String v = text(column);
            return v == null ? null : Long.valueOf(v);
        }
    }

    /**
     * A {@code timestamptz} as PostgreSQL prints it with {@code DateStyle=ISO}: {@code 2026-12-01
     * 19:12:46.513556+00}, offsets to the second ({@code +05:30}, {@code -03:00:07}), years past
     * 9999 ({@code 294276-12-31 23:59:59+00}), {@code 4713-01-01 00:00:00+00 BC} (proleptic
     * Gregorian, as PostgreSQL counts), {@code infinity} and {@code -infinity} (as the largest and
     * smallest instants pgjdbc gives for them). Null for null.
     */
    public static Instant timestamp(String text) {
        if (text == null) {
            return null;
        }
        if (text.equals("infinity")) {
            return Instant.ofEpochMilli(org.postgresql.PGStatement.DATE_POSITIVE_INFINITY);
        }
        if (text.equals("-infinity")) {
            return Instant.ofEpochMilli(org.postgresql.PGStatement.DATE_NEGATIVE_INFINITY);
        }
        try {
            String t = text;
            boolean bc = t.endsWith(" BC");
            if (bc) {
                t = t.substring(0, t.length() - 3);
            }
            int space = t.indexOf(' ');
            String date = t.substring(0, space);
            String rest = t.substring(space + 1);
            int dash1 = date.indexOf('-');
            int dash2 = date.indexOf('-', dash1 + 1);
            int year = Integer.parseInt(date.substring(0, dash1));
            if (bc) {
                year = 1 - year; // 1 BC is year 0
            }
            LocalDate day = LocalDate.of(
                    year,
                    Integer.parseInt(date.substring(dash1 + 1, dash2)),
                    Integer.parseInt(date.substring(dash2 + 1)));
            int sign = Math.max(rest.lastIndexOf('+'), rest.lastIndexOf('-'));
            LocalTime time = LocalTime.parse(rest.substring(0, sign));
            String offset = rest.substring(sign);
            String[] parts = offset.substring(1).split(":");
            int seconds = Integer.parseInt(parts[0]) * 3600
                    + (parts.length > 1 ? Integer.parseInt(parts[1]) * 60 : 0)
                    + (parts.length > 2 ? Integer.parseInt(parts[2]) : 0);
            ZoneOffset zone = ZoneOffset.ofTotalSeconds(offset.charAt(0) == '-' ? -seconds : seconds);
            return day.atTime(time).toInstant(zone);
        } catch (RuntimeException e) {
            throw new IllegalStateException("not a timestamptz as PostgreSQL prints it: " + text, e);
        }
    }
}
