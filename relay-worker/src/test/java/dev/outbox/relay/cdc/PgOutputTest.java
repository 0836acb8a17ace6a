package dev.outbox.relay.cdc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/**
 * The decoder against messages built here from the protocol's description (PostgreSQL docs,
 * "Logical Replication Message Formats"), with generated values; {@code CdcDecodingIT} decodes
 * what a real PostgreSQL sends.
 */
class PgOutputTest {
    /** Builds messages the way pgoutput writes them. */
    private static final class Writer {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private final DataOutputStream out = new DataOutputStream(bytes);

        Writer b(int v) throws IOException {
            out.writeByte(v);
            return this;
        }

        Writer s16(int v) throws IOException {
            out.writeShort(v);
            return this;
        }

        Writer i32(int v) throws IOException {
            out.writeInt(v);
            return this;
        }

        Writer i64(long v) throws IOException {
            out.writeLong(v);
            return this;
        }

        Writer str(String v) throws IOException {
            out.write(v.getBytes(StandardCharsets.UTF_8));
            out.writeByte(0);
            return this;
        }

        Writer raw(byte[] v) throws IOException {
            out.write(v);
            return this;
        }

        ByteBuffer buffer() {
            return ByteBuffer.wrap(bytes.toByteArray());
        }
    }

    static ByteBuffer insert(int relation, List<String> values) throws IOException {
        Writer w = new Writer().b('I').i32(relation).b('N').s16(values.size());
        for (String v : values) {
            if (v == null) {
                w.b('n');
            } else {
                byte[] utf8 = v.getBytes(StandardCharsets.UTF_8);
                w.b('t').i32(utf8.length).raw(utf8);
            }
        }
        return w.buffer();
    }

    @Provide
    Arbitrary<List<String>> tuples() {
        Arbitrary<String> value = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(1, Arbitraries.just(null)),
                net.jqwik.api.Tuple.of(
                        6,
                        // every character that survives UTF-8 (no lone surrogates), NUL and controls included
                        Arbitraries.strings()
                                .withCharRange('\u0000', '\uD7FF')
                                .withCharRange('\uE000', '\uFFFF')
                                .ofMaxLength(300)),
                net.jqwik.api.Tuple.of(1, Arbitraries.of("\uD834\uDD1E", "a\uD83D\uDE00b", "\u0000")),
                net.jqwik.api.Tuple.of(1, Arbitraries.just("")),
                net.jqwik.api.Tuple.of(1, Arbitraries.strings().withChars('x').ofLength(70_000)));
        return value.list().ofMinSize(0).ofMaxSize(30);
    }

    @Property(tries = 300)
    void anInsertDecodesToItsValuesWhateverTheyHold(@ForAll("tuples") List<String> values) throws IOException {
        ByteBuffer b = insert(16_384, values);
        PgOutput.Insert i = (PgOutput.Insert) PgOutput.decode(b);
        assertEquals(16_384, i.relationId());
        assertEquals(values, i.values());
        assertEquals(0, b.remaining(), "the whole message is consumed");
    }

    @Property(tries = 300)
    void aMessageCutShortIsMalformedNeverAnotherFailure(@ForAll("tuples") List<String> values, @ForAll double where)
            throws IOException {
        byte[] whole = insert(7, values).array();
        int cut = (int) (Math.abs(where) % 1.0 * whole.length);
        ByteBuffer truncated = ByteBuffer.wrap(Arrays.copyOf(whole, cut));
        assertThrows(PgOutput.MalformedMessage.class, () -> PgOutput.decode(truncated));
    }

    @Property(tries = 2_000)
    void anyBytesDecodeOrAreMalformedNothingElse(@ForAll @Size(max = 64) byte[] bytes) {
        try {
            PgOutput.decode(ByteBuffer.wrap(bytes));
        } catch (PgOutput.MalformedMessage expected) {
            // the one way to refuse
        }
    }

    @Test
    void transactionBoundariesCarryTheirPositions() throws IOException {
        PgOutput.Begin begin = (PgOutput.Begin) PgOutput.decode(
                new Writer().b('B').i64(0x16B3748L).i64(123_456_789L).i32(742).buffer());
        assertEquals(new PgOutput.Begin(0x16B3748L, 123_456_789L, 742), begin);
        PgOutput.Commit commit = (PgOutput.Commit) PgOutput.decode(new Writer()
                .b('C')
                .b(0)
                .i64(0x16B3748L)
                .i64(0x16B3778L)
                .i64(123_456_789L)
                .buffer());
        assertEquals(new PgOutput.Commit(0x16B3748L, 0x16B3778L, 123_456_789L), commit);
    }

    @Test
    void aRelationNamesItsColumnsInOrder() throws IOException {
        Writer w = new Writer()
                .b('R')
                .i32(16_384)
                .str("public")
                .str("message_outbox")
                .b('d')
                .s16(3);
        for (String c : List.of("id", "aggregate_type", "payload")) {
            w.b(1).str(c).i32(25).i32(-1);
        }
        assertEquals(
                new PgOutput.Relation(16_384, "public", "message_outbox", List.of("id", "aggregate_type", "payload")),
                PgOutput.decode(w.buffer()));
    }

    @Test
    void aLogicalMessageKeepsPrefixAndContent() throws IOException {
        byte[] content = "tick 12345".getBytes(StandardCharsets.UTF_8);
        PgOutput.Message m = PgOutput.decode(new Writer()
                .b('M')
                .b(0)
                .i64(99L)
                .str("outbox-cdc")
                .i32(content.length)
                .raw(content)
                .buffer());
        assertEquals(new PgOutput.LogicalMessage(false, 99L, "outbox-cdc", "tick 12345"), m);
    }

    @Test
    void whatTheRelayCannotUseIsRefusedByName() throws IOException {
        List<ByteBuffer> refused = new ArrayList<>();
        refused.add(new Writer().b('I').i32(1).b('N').s16(1).b('u').buffer());
        refused.add(new Writer().b('I').i32(1).b('N').s16(1).b('b').i32(0).buffer());
        refused.add(new Writer().b('I').i32(1).b('K').buffer());
        refused.add(new Writer().b('Z').buffer());
        refused.add(new Writer().b('I').i32(1).b('N').s16(1).b('t').i32(-5).buffer());
        for (ByteBuffer b : refused) {
            assertThrows(PgOutput.MalformedMessage.class, () -> PgOutput.decode(b));
        }
        assertEquals(
                new PgOutput.Skipped('U'),
                PgOutput.decode(new Writer().b('U').i32(1).buffer()));
    }
}
