package dev.outbox.domain.event;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Currency;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * The message contracts of the catalogue, checked on a parsed JSON tree (maps, lists, strings,
 * numbers, booleans, null). The same check runs twice: when the business transaction writes the
 * outbox row (so a bad payload never commits) and when the relay is about to publish it (so a row
 * written by another SQL client, or an old row after a contract change, is parked as
 * {@code PAYLOAD_INVALID} rather than sent).
 *
 * <p>Contracts are additive: unknown fields are allowed, required fields must be present and of
 * the right shape. A message type this catalogue does not know is not checked beyond being JSON;
 * a known type at an unknown version is a violation.
 */
public final class MessageContract {
    private static final Pattern DECIMAL = Pattern.compile("-?(0|[1-9][0-9]*)(\\.[0-9]+)?");
    /** Compiled once: the relay checks every message it publishes (String.matches compiles per call). */
    private static final Pattern CURRENCY_CODE = Pattern.compile("[A-Z]{3}");

    private interface FieldRule {
        Optional<String> check(Object value);
    }

    private record Field(String name, boolean required, FieldRule rule) {
    }

    private static final Map<String, List<Field>> CONTRACTS = new LinkedHashMap<>();

    static {
        CONTRACTS.put(key(EventType.ORDER_CREATED.messageType(), 1), List.of(
                required("orderId", MessageContract::uuid),
                required("customerId", MessageContract::nonBlankString),
                optional("tenantId", MessageContract::nonBlankString),
                required("currency", MessageContract::currency),
                required("total", v -> decimal(v, true)),
                required("lines", MessageContract::lines),
                required("placedAt", MessageContract::instant)));
        CONTRACTS.put(key(EventType.PAYMENT_CAPTURED.messageType(), 1), List.of(
                required("orderId", MessageContract::uuid),
                required("paymentId", MessageContract::uuid),
                required("amount", v -> decimal(v, true)),
                required("currency", MessageContract::currency),
                required("capturedAt", MessageContract::instant)));
        CONTRACTS.put(key(EventType.ORDER_CANCELLED.messageType(), 1), List.of(
                required("orderId", MessageContract::uuid),
                required("reason", MessageContract::nonBlankString),
                required("previousStatus", v -> oneOf(v, "PLACED", "CAPTURED")),
                required("cancelledAt", MessageContract::instant)));
        CONTRACTS.put(key(EventType.PAYMENT_REFUNDED.messageType(), 1), List.of(
                required("orderId", MessageContract::uuid),
                required("paymentId", MessageContract::uuid),
                required("amount", v -> decimal(v, true)),
                required("currency", MessageContract::currency),
                required("refundedAt", MessageContract::instant)));
    }

    private MessageContract() {
    }

    /** True when this catalogue has a contract for the message type (at any version). */
    public static boolean knows(String messageType) {
        return EventType.byMessageType(messageType).isPresent();
    }

    /**
     * Checks a payload. {@code aggregateId} is the outbox row's aggregate id: for known types the
     * payload's {@code orderId} must name the same aggregate, so a row can never announce one
     * order while being ordered and deduplicated as another.
     *
     * @return every violation found, empty when the payload honours its contract
     */
    public static List<String> violations(String messageType, int messageVersion, String aggregateId,
            Object payload) {
        if (!knows(messageType)) {
            return List.of();
        }
        List<Field> fields = CONTRACTS.get(key(messageType, messageVersion));
        if (fields == null) {
            return List.of(messageType + " has no contract at version " + messageVersion);
        }
        if (!(payload instanceof Map<?, ?> map)) {
            return List.of("payload must be a JSON object");
        }
        List<String> out = new ArrayList<>();
        for (Field field : fields) {
            Object value = map.get(field.name());
            if (value == null) {
                if (field.required()) {
                    out.add(field.name() + " is required");
                }
                continue;
            }
            field.rule().check(value).ifPresent(problem -> out.add(field.name() + " " + problem));
        }
        Object orderId = map.get("orderId");
        if (out.isEmpty() && aggregateId != null && !aggregateId.equals(orderId)) {
            out.add("orderId " + orderId + " does not match the row's aggregate_id " + aggregateId);
        }
        return List.copyOf(out);
    }

    private static String key(String messageType, int version) {
        return messageType + "@" + version;
    }

    private static Field required(String name, FieldRule rule) {
        return new Field(name, true, rule);
    }

    private static Field optional(String name, FieldRule rule) {
        return new Field(name, false, rule);
    }

    private static Optional<String> nonBlankString(Object v) {
        if (!(v instanceof String s)) {
            return Optional.of("must be a string");
        }
        return s.isBlank() ? Optional.of("must not be blank") : Optional.empty();
    }

    private static Optional<String> uuid(Object v) {
        if (!(v instanceof String s)) {
            return Optional.of("must be a UUID string");
        }
        try {
            UUID parsed = UUID.fromString(s);
            return parsed.toString().equals(s) ? Optional.empty() : Optional.of("must be a canonical UUID string");
        } catch (IllegalArgumentException e) {
            return Optional.of("must be a UUID string");
        }
    }

    private static Optional<String> currency(Object v) {
        if (!(v instanceof String s) || !CURRENCY_CODE.matcher(s).matches()) {
            return Optional.of("must be an ISO 4217 code");
        }
        try {
            Currency.getInstance(s);
            return Optional.empty();
        } catch (IllegalArgumentException e) {
            return Optional.of("must be an ISO 4217 code");
        }
    }

    private static Optional<String> decimal(Object v, boolean positive) {
        if (!(v instanceof String s) || !DECIMAL.matcher(s).matches()) {
            return Optional.of("must be a decimal string");
        }
        if (positive && (s.startsWith("-") || new java.math.BigDecimal(s).signum() == 0)) {
            return Optional.of("must be greater than zero");
        }
        return Optional.empty();
    }

    private static Optional<String> instant(Object v) {
        if (!(v instanceof String s)) {
            return Optional.of("must be an ISO-8601 instant string");
        }
        try {
            Instant.parse(s);
            return Optional.empty();
        } catch (DateTimeParseException e) {
            return Optional.of("must be an ISO-8601 instant string");
        }
    }

    private static Optional<String> oneOf(Object v, String... allowed) {
        for (String a : allowed) {
            if (a.equals(v)) {
                return Optional.empty();
            }
        }
        return Optional.of("must be one of " + String.join(", ", allowed));
    }

    private static Optional<String> lines(Object v) {
        if (!(v instanceof List<?> list) || list.isEmpty()) {
            return Optional.of("must be a non-empty array");
        }
        for (int i = 0; i < list.size(); i++) {
            if (!(list.get(i) instanceof Map<?, ?> line)) {
                return Optional.of("[" + i + "] must be an object");
            }
            if (nonBlankString(line.get("sku")).isPresent()) {
                return Optional.of("[" + i + "].sku must be a non-blank string");
            }
            if (!(line.get("quantity") instanceof Number n) || n.longValue() < 1
                    || n.doubleValue() != Math.floor(n.doubleValue())) {
                return Optional.of("[" + i + "].quantity must be a positive integer");
            }
            if (decimal(line.get("unitPrice"), false).isPresent()) {
                return Optional.of("[" + i + "].unitPrice must be a decimal string");
            }
        }
        return Optional.empty();
    }
}
