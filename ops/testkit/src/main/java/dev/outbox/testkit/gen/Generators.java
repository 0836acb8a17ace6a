package dev.outbox.testkit.gen;

import java.util.List;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;
import org.quicktheories.generators.SourceDSL;

/**
 * Generators several modules' property tests share, each value's edges mixed in one time in ten
 * (QuickTheories draws evenly over a range and reaches an edge by chance only).
 */
public final class Generators {
    private Generators() {}

    /**
     * Strings of {@code min} to {@code max} chars, one in ten the shortest or the longest, of any
     * char but a surrogate, a noncharacter (U+FDD0 to U+FDEF, U+FFFE, U+FFFF) or one of private use
     * (U+E000 to U+F8FF); one char in ten NUL, a space or U+FFFD, the ends of that range.
     */
    public static Gen<String> text(int min, int max) {
        // 0000-D7FF, F900-FDCF, FDF0-FFFD counted through in that order
        Gen<Character> chars = SourceDSL.integers()
                .between(0, 0xD800 + 0x4D0 + 0x20E - 1)
                .map(i -> {
                    int c = i < 0xD800 ? i : i < 0xD800 + 0x4D0 ? 0xF900 + i - 0xD800 : 0xFDF0 + i - 0xD800 - 0x4D0;
                    return (char) c;
                })
                .mix(Generate.pick(List.of('\u0000', ' ', '\uFFFD')), 10);
        return SourceDSL.lists()
                .of(chars)
                .ofSizes(SourceDSL.integers().between(min, max).mix(Generate.pick(List.of(min, max)), 10))
                .map(cs -> {
                    StringBuilder sb = new StringBuilder(cs.size());
                    cs.forEach(sb::append);
                    return sb.toString();
                });
    }

    /**
     * Values of the form every outbox status and error code has ({@code Codes.SHAPE} in the kernel,
     * the database's checks since V16): an upper-case letter, then up to 39 upper-case letters,
     * digits and underscores; one in ten of the shortest or the longest. Nearly all are codes no
     * version has, which is what a newer version's code looks like to an older one.
     */
    public static Gen<String> code() {
        String tailChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_";
        Gen<Character> first = SourceDSL.integers().between('A', 'Z').map(i -> (char) i.intValue());
        Gen<Character> tail =
                SourceDSL.integers().between(0, tailChars.length() - 1).map(tailChars::charAt);
        Gen<List<Character>> tails = SourceDSL.lists()
                .of(tail)
                .ofSizes(SourceDSL.integers().between(0, 39).mix(Generate.pick(List.of(0, 39)), 10));
        return first.zip(tails, (f, t) -> {
            StringBuilder sb = new StringBuilder(1 + t.size()).append(f.charValue());
            t.forEach(sb::append);
            return sb.toString();
        });
    }

    /** Any long; one in ten an edge: each end, one in from each end, -2 to 2. */
    public static Gen<Long> anyLong() {
        return SourceDSL.longs()
                .all()
                .mix(
                        Generate.pick(List.of(
                                Long.MIN_VALUE,
                                Long.MIN_VALUE + 1,
                                -2L,
                                -1L,
                                0L,
                                1L,
                                2L,
                                Long.MAX_VALUE - 1,
                                Long.MAX_VALUE)),
                        10);
    }
}
