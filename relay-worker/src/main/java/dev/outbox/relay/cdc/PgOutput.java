package dev.outbox.relay.cdc;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes the messages of PostgreSQL's {@code pgoutput} logical decoding plugin, protocol version
 * 1 (PostgreSQL 10 and later), as pgjdbc's replication stream hands them over: one message per
 * buffer. Only what the relay needs is kept: transaction boundaries (with the commit's LSN, which
 * is what the slot's confirmed position advances to), relation descriptions (column names, so a
 * row does not depend on the table's column order), inserted rows as text, and logical decoding
 * messages (the relay's ticks). Every other message (origin, type, update, delete, truncate) is
 * recognised and skipped; a
 * message the protocol does not define is an error, never silently dropped.
 *
 * <p>Text values are as the column type's output function prints them, in the session's settings
 * (pgjdbc's replication connection sets {@code DateStyle=ISO}).
 */
public final class PgOutput {
    private PgOutput() {}

    /** A decoded message. */
    public sealed interface Message permits Begin, Commit, Relation, Insert, LogicalMessage, Skipped {}

    /**
     * The start of a transaction.
     *
     * @param finalLsn the LSN of its commit record
     * @param commitMicros commit time, microseconds since 2000-01-01 (PostgreSQL's epoch)
     */
    public record Begin(long finalLsn, long commitMicros, int xid) implements Message {}

    /**
     * The end of a transaction.
     *
     * @param commitLsn the LSN of the commit record
     * @param endLsn the LSN just past it: the position to confirm once the transaction is handled
     */
    public record Commit(long commitLsn, long endLsn, long commitMicros) implements Message {}

    /** A table's description, sent before its first row in a session and after any change to it. */
    public record Relation(int id, String namespace, String name, List<String> columns) implements Message {}

    /**
     * An inserted row. {@code values} are in the relation's column order: text, or null for SQL
     * NULL. A value sent as "unchanged TOAST" (never for an insert) or in binary is refused.
     */
    public record Insert(int relationId, List<String> values) implements Message {}

    /**
     * A message written with {@code pg_logical_emit_message} (sent only with the {@code messages}
     * option): the relay's own ticks.
     */
    public record LogicalMessage(boolean transactional, long lsn, String prefix, String content) implements Message {}

    /** A message the relay has no use for, by its type byte. */
    public record Skipped(char type) implements Message {}

    /** The buffer is not a pgoutput message this decoder understands. */
    public static final class MalformedMessage extends RuntimeException {
        private static final long serialVersionUID = 1L;

        MalformedMessage(String message) {
            super(message);
        }
    }

    /** Decodes one message; the buffer's position is advanced past it. */
    public static Message decode(ByteBuffer buffer) {
        if (!buffer.hasRemaining()) {
            throw new MalformedMessage("empty message");
        }
        char type = (char) buffer.get();
        try {
            return switch (type) {
                case 'B' -> new Begin(buffer.getLong(), buffer.getLong(), buffer.getInt());
                case 'C' -> {
                    buffer.get(); // flags, unused (always 0)
                    yield new Commit(buffer.getLong(), buffer.getLong(), buffer.getLong());
                }
                case 'R' -> relation(buffer);
                case 'I' -> insert(buffer);
                case 'M' -> {
                    boolean transactional = (buffer.get() & 1) != 0;
                    long lsn = buffer.getLong();
                    String prefix = string(buffer);
                    int length = buffer.getInt();
                    if (length < 0 || length > buffer.remaining()) {
                        throw new MalformedMessage(
                                "a logical message of " + length + " bytes, " + buffer.remaining() + " left");
                    }
                    byte[] content = new byte[length];
                    buffer.get(content);
                    yield new LogicalMessage(transactional, lsn, prefix, new String(content, StandardCharsets.UTF_8));
                }
                // origin, type, update, delete, truncate: not the relay's business
                case 'O', 'Y', 'U', 'D', 'T' -> {
                    buffer.position(buffer.limit());
                    yield new Skipped(type);
                }
                default ->
                    throw new MalformedMessage("unknown pgoutput message type '" + type + "' (" + (int) type + ")");
            };
        } catch (java.nio.BufferUnderflowException e) {
            throw new MalformedMessage("pgoutput message '" + type + "' ends early");
        }
    }

    private static Relation relation(ByteBuffer b) {
        int id = b.getInt();
        String namespace = string(b);
        String name = string(b);
        b.get(); // replica identity setting
        int columns = Short.toUnsignedInt(b.getShort());
        List<String> names = new ArrayList<>(columns);
        for (int i = 0; i < columns; i++) {
            b.get(); // flags: part of the key
            names.add(string(b));
            b.getInt(); // type oid
            b.getInt(); // type modifier
        }
        return new Relation(id, namespace, name, List.copyOf(names));
    }

    private static Insert insert(ByteBuffer b) {
        int relationId = b.getInt();
        char kind = (char) b.get();
        if (kind != 'N') {
            throw new MalformedMessage("insert without a new tuple ('" + kind + "')");
        }
        int columns = Short.toUnsignedInt(b.getShort());
        List<String> values = new ArrayList<>(columns);
        for (int i = 0; i < columns; i++) {
            char k = (char) b.get();
            switch (k) {
                case 'n' -> values.add(null);
                case 't' -> {
                    int length = b.getInt();
                    if (length < 0 || length > b.remaining()) {
                        throw new MalformedMessage("a text value of " + length + " bytes, " + b.remaining() + " left");
                    }
                    byte[] bytes = new byte[length];
                    b.get(bytes);
                    values.add(new String(bytes, StandardCharsets.UTF_8));
                }
                case 'u' -> throw new MalformedMessage("an unchanged TOAST value in an insert (column " + i + ")");
                case 'b' -> throw new MalformedMessage("a binary value (column " + i + "): the relay asks for text");
                default -> throw new MalformedMessage("unknown tuple value kind '" + k + "' (column " + i + ")");
            }
        }
        // everything (not only the result) is a copy, so the list never aliases pgjdbc's buffer
        return new Insert(relationId, java.util.Collections.unmodifiableList(values));
    }

    /** A NUL-terminated string, UTF-8 (the database's encoding; the relay requires UTF8). */
    private static String string(ByteBuffer b) {
        int start = b.position();
        int end = start;
        while (end < b.limit() && b.get(end) != 0) {
            end++;
        }
        if (end == b.limit()) {
            throw new MalformedMessage("a name without its terminating NUL");
        }
        byte[] bytes = new byte[end - start];
        b.get(bytes);
        b.get(); // the NUL
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
