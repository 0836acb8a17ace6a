package dev.outbox.api.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;

/**
 * Text and instants as PostgreSQL takes them, over generated input: every UTF-16 unit, NUL and lone
 * surrogates included, checked against an independent oracle (a strict UTF-8 encoder, which is
 * what the JDBC driver needs to succeed, and PostgreSQL's refusal of U+0000).
 */
class StorableValuesTest {

    @Provide
    Arbitrary<String> anyText() {
        Arbitrary<Character> hostile = Arbitraries.of('\0', '\ud800', '\udbff', '\udc00', '\udfff', '\u0001', '\uffff');
        Arbitrary<Character> any = Arbitraries.chars().all();
        Arbitrary<String> pairs =
                Arbitraries.integers().between(0x10000, 0x10FFFF).map(cp -> new String(Character.toChars(cp)));
        return Arbitraries.oneOf(
                        any.map(String::valueOf),
                        hostile.map(String::valueOf),
                        pairs,
                        Arbitraries.strings().alpha().ofMaxLength(3))
                .list()
                .ofMaxSize(12)
                .map(parts -> String.join("", parts));
    }

    @Property(tries = 2_000)
    void textIsRefusedExactlyWhenPostgresOrUtf8WouldRefuseIt(@ForAll("anyText") String text) {
        boolean storable = text.indexOf('\0') < 0 && strictUtf8(text);
        String defect = StorableValues.textDefect(text);
        assertEquals(storable, defect == null, () -> "text " + escape(text) + " -> " + defect);
    }

    @Property(tries = 500)
    void instantsAreTakenWithinFourDigitYearsOnly(
            @ForAll @LongRange(min = -400_000_000_000L, max = 400_000_000_000L) long seconds) {
        Instant instant = Instant.ofEpochSecond(seconds);
        int year = instant.atZone(java.time.ZoneOffset.UTC).getYear();
        boolean inRange = year >= 1 && year <= 9999;
        assertEquals(inRange, StorableValues.instantDefect(instant) == null, instant::toString);
    }

    @Example
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
