package dev.outbox.api.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * Text and instants as PostgreSQL takes them, over generated input: every UTF-16 unit, NUL and lone
 * surrogates included, checked against an independent oracle (a strict UTF-8 encoder, which is
 * what the JDBC driver needs to succeed, and PostgreSQL's refusal of U+0000).
 */
class StorableValuesTest {

    /**
     * Up to 12 parts joined: any UTF-16 unit, a hostile one, a supplementary character (a surrogate
     * pair) or up to 3 letters; one part in ten an edge value (the empty part, NUL, a blank, U+FFFF,
     * the first and last supplementary characters, single letters).
     */
    Gen<String> anyText() {
        Gen<String> any = integers().between(0, 0xFFFF).map(c -> String.valueOf((char) c.intValue()));
        Gen<String> hostile = Generate.pick(List.of('\0', '\ud800', '\udbff', '\udc00', '\udfff', '\u0001', '\uffff'))
                .map(c -> String.valueOf(c));
        Gen<String> pairs = integers().between(0x10000, 0x10FFFF).map(cp -> new String(Character.toChars(cp)));
        List<Character> letters = IntStream.concat(IntStream.rangeClosed('A', 'Z'), IntStream.rangeClosed('a', 'z'))
                .mapToObj(c -> (char) c)
                .toList();
        Gen<String> alpha = lists().of(Generate.pick(letters))
                .ofSizeBetween(0, 3)
                .map(cs -> cs.stream().map(String::valueOf).collect(Collectors.joining()));
        Gen<String> edges = Generate.pick(List.of(
                "",
                "\0",
                " ",
                "\uffff",
                new String(Character.toChars(0x10000)),
                new String(Character.toChars(0x10001)),
                new String(Character.toChars(0x10FFFE)),
                new String(Character.toChars(0x10FFFF)),
                "A",
                "Z",
                "a",
                "z"));
        return lists().of(Generate.oneOf(any, hostile, pairs, alpha).mix(edges, 10))
                .ofSizeBetween(0, 12)
                .map(parts -> String.join("", parts))
                .describedAs(StorableValuesTest::escape);
    }

    @Test
    void textIsRefusedExactlyWhenPostgresOrUtf8WouldRefuseIt() {
        qt().withExamples(2_000).forAll(anyText()).checkAssert(text -> {
            boolean storable = text.indexOf('\0') < 0 && strictUtf8(text);
            String defect = StorableValues.textDefect(text);
            assertEquals(storable, defect == null, () -> "text " + escape(text) + " -> " + defect);
        });
    }

    @Test
    void instantsAreTakenWithinFourDigitYearsOnly() {
        long bound = 400_000_000_000L;
        // one value in ten an edge: each end, one in from each end, -2 to 2
        Gen<Long> epochSeconds = longs().between(-bound, bound)
                .mix(Generate.pick(List.of(-bound, -bound + 1, -2L, -1L, 0L, 1L, 2L, bound - 1, bound)), 10);
        qt().withExamples(500).forAll(epochSeconds).checkAssert(seconds -> {
            Instant instant = Instant.ofEpochSecond(seconds);
            int year = instant.atZone(java.time.ZoneOffset.UTC).getYear();
            boolean inRange = year >= 1 && year <= 9999;
            assertEquals(inRange, StorableValues.instantDefect(instant) == null, instant::toString);
        });
    }

    @Test
    void theEdgesOfTheRangeAreIn() {
        assertNull(StorableValues.instantDefect(StorableValues.EARLIEST));
        assertNull(StorableValues.instantDefect(StorableValues.LATEST));
        assertNotNull(StorableValues.instantDefect(StorableValues.LATEST.plus(1, ChronoUnit.MICROS)));
        assertNotNull(StorableValues.instantDefect(StorableValues.EARLIEST.minusNanos(1)));
    }

    private static boolean strictUtf8(String text) {
        try {
            ByteBuffer ignored = StandardCharsets.UTF_8
                    .newEncoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .encode(CharBuffer.wrap(text));
            return ignored != null;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    private static String escape(String s) {
        StringBuilder sb = new StringBuilder();
        s.chars().forEach(c -> sb.append(String.format("\\u%04x", c)));
        return sb.toString();
    }
}
