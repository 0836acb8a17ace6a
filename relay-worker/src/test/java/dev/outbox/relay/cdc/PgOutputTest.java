package dev.outbox.relay.cdc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.doubles;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

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

    static ByteBuffer insert(int relation, List<String> values) {
        try {
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
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a stream into a byte array does not fail
        }
    }

    /** A tuple's values: 0 to 30 of them, each null or text of any kind. */
    static Gen<List<String>> tuples() {
        // every character that survives UTF-8 (no lone surrogates), NUL and controls included: the
        // two ranges weighted by their sizes, so every such character is as likely as another
        Gen<Integer> character = Generate.frequency(
                Pair.of(0xD800, integers().between(0x0000, 0xD7FF)),
                Pair.of(0x2000, integers().between(0xE000, 0xFFFF)));
        Gen<String> text = lists().of(character).ofSizeBetween(0, 300).map(units -> {
            StringBuilder b = new StringBuilder(units.size());
            units.forEach(u -> b.append((char) u.intValue()));
            return b.toString();
        });
        Gen<String> value = Generate.frequency(
                Pair.of(1, Generate.constant((String) null)),
                Pair.of(6, text),
                // astral characters, NUL alone, and the ranges' edge characters alone
                Pair.of(
                        1,
                        Generate.pick(
                                List.of("\uD834\uDD1E", "a\uD83D\uDE00b", "\u0000", "\uD7FF", "\uE000", "\uFFFF"))),
                Pair.of(1, Generate.constant("")),
                Pair.of(1, Generate.constant("x".repeat(70_000))));
        return lists().of(value)
                .ofSizeBetween(0, 30)
                .describedAs(values ->
                        values.stream().map(PgOutputTest::show).toList().toString());
    }

    /** A value as a counterexample shows it: short ones escaped, long ones by length. */
    private static String show(String v) {
        if (v == null) {
            return "null";
        }
        if (v.length() > 80) {
            return v.length() + " chars";
        }
        StringBuilder b = new StringBuilder("\"");
        v.chars().forEach(c -> b.append(c < 0x20 || c > 0x7e ? String.format("\\u%04x", c) : String.valueOf((char) c)));
        return b.append('"').toString();
    }

    @Test
    void anInsertDecodesToItsValuesWhateverTheyHold() {
        qt().withExamples(300).forAll(tuples()).checkAssert(values -> {
            ByteBuffer b = insert(16_384, values);
            PgOutput.Insert i = (PgOutput.Insert) PgOutput.decode(b);
            assertEquals(16_384, i.relationId());
            assertEquals(values, i.values());
            assertEquals(0, b.remaining(), "the whole message is consumed");
        });
    }

    @Test
    void aMessageCutShortIsMalformedNeverAnotherFailure() {
        // where in the message to cut it, as a fraction of its length
        qt().withExamples(300).forAll(tuples(), doubles().fromZeroToOne()).checkAssert((values, where) -> {
            byte[] whole = insert(7, values).array();
            int cut = (int) (Math.abs(where) % 1.0 * whole.length);
            ByteBuffer truncated = ByteBuffer.wrap(Arrays.copyOf(whole, cut));
            assertThrows(PgOutput.MalformedMessage.class, () -> PgOutput.decode(truncated));
        });
    }

    @Test
    void anyBytesDecodeOrAreMalformedNothingElse() {
        qt().withExamples(2_000)
                .forAll(Generate.byteArrays(
                                integers().between(0, 64), Generate.bytes(Byte.MIN_VALUE, Byte.MAX_VALUE, (byte) 0))
                        // single bytes at the edges, and each message kind's first byte alone
                        .mix(
                                Generate.pick(List.of(
                                        new byte[] {0},
                                        new byte[] {Byte.MIN_VALUE},
                                        new byte[] {Byte.MAX_VALUE},
                                        new byte[] {'B'},
                                        new byte[] {'C'},
                                        new byte[] {'R'},
                                        new byte[] {'I'},
                                        new byte[] {'U'},
                                        new byte[] {'D'})),
                                10))
                .checkAssert(bytes -> {
                    try {
                        PgOutput.decode(ByteBuffer.wrap(bytes));
                    } catch (PgOutput.MalformedMessage expected) {
                        // the one way to refuse
                    }
                });
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
