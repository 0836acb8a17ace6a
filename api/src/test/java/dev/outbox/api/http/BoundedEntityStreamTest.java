package dev.outbox.api.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * The body limit over generated bodies, limits and read patterns (single bytes, small and large
 * buffers, skips): a body within the limit arrives whole and unchanged, one over it throws
 * {@link RequestBodyTooLargeException} having read at most one byte past the limit, and a stream
 * that breaks off is the client's {@link RequestBodyUnreadableException}.
 */
class BoundedEntityStreamTest {

    @Test
    void aBodyWithinTheLimitArrivesWholeAndOneOverItIsRefusedAtTheLimit() {
        qt().withExamples(1_000)
                .forAll(
                        ints(0, 5_000),
                        ints(1, 5_000),
                        lists().of(ints(0, 9_000)).ofSizeBetween(1, 8))
                .checkAssert((size, limit, reads) -> readBack(size, limit, reads));
    }

    /** One generated body of {@code size} bytes read under {@code limit} by the pattern {@code reads}. */
    private static void readBack(int size, int limit, List<Integer> reads) {
        byte[] body = new byte[size];
        for (int i = 0; i < size; i++) {
            body[i] = (byte) (i * 31);
        }
        CountingStream source = new CountingStream(body);
        BoundedEntityStream bounded = new BoundedEntityStream(source, limit);
        ByteArrayOutputStream seen = new ByteArrayOutputStream();
        try {
            int step = 0;
            while (true) {
                int pattern = reads.get(step++ % reads.size());
                if (pattern == 0) {
                    int b = bounded.read();
                    if (b == -1) {
                        break;
                    }
                    seen.write(b);
                } else {
                    byte[] buffer = new byte[pattern];
                    int n = bounded.read(buffer, 0, buffer.length);
                    if (n == -1) {
                        break;
                    }
                    seen.write(buffer, 0, n);
                }
            }
            assertTrue(size <= limit, "a body of " + size + " bytes passed a limit of " + limit);
            assertArrayEquals(body, seen.toByteArray());
        } catch (RequestBodyTooLargeException e) {
            assertTrue(size > limit, "refused a body of " + size + " bytes under a limit of " + limit);
            assertEquals(limit, e.limit());
            assertTrue(source.read <= (long) limit + 1, "read " + source.read + " bytes for a limit of " + limit);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void readAllStopsOneBytePastTheLimit() {
        qt().withExamples(300).forAll(ints(0, 20_000), ints(1, 20_000)).checkAssert((size, limit) -> {
            try {
                readAllUnder(size, limit);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    private static void readAllUnder(int size, int limit) throws IOException {
        CountingStream source = new CountingStream(new byte[size]);
        if (size <= limit) {
            assertEquals(size, BoundedEntityStream.readAll(source, limit).length);
        } else {
            assertThrows(RequestBodyTooLargeException.class, () -> BoundedEntityStream.readAll(source, limit));
            assertTrue(source.read <= (long) limit + 1, "read " + source.read + " of " + size);
        }
    }

    @Test
    void aBodyThatBreaksOffIsTheClientsFaultNotAnIoErrorOfTheServer() {
        InputStream broken = new InputStream() {
            @Override
            public int read() throws IOException {
                throw new EOFException("client went away");
            }
        };
        RequestBodyUnreadableException e = assertThrows(
                RequestBodyUnreadableException.class, () -> new BoundedEntityStream(broken, 10).read(new byte[4]));
        assertTrue(e.getCause() instanceof EOFException);
    }

    /**
     * An int of {@code [min, max]}: one time in ten an edge of the range (each end, one in from each
     * end, and -2 to 2 where inside), otherwise as often near {@code min} (within a power of two of
     * it, the power drawn first, so that single bytes, small buffers and small bodies come often) as
     * anywhere in the range.
     */
    private static Gen<Integer> ints(int min, int max) {
        List<Integer> edges = IntStream.of(min, min + 1, -2, -1, 0, 1, 2, max - 1, max)
                .filter(v -> v >= min && v <= max)
                .distinct()
                .boxed()
                .toList();
        Gen<Integer> nearMin = integers()
                .between(0, 32 - Integer.numberOfLeadingZeros(max - min))
                .flatMap(bits -> integers().between(min, (int) Math.min(max, min + (1L << bits) - 1)));
        return integers().between(min, max).mix(nearMin).mix(Generate.pick(edges), 10);
    }

    /** A body source that counts what was taken from it. */
    private static final class CountingStream extends ByteArrayInputStream {
        long read;

        CountingStream(byte[] body) {
            super(body);
        }

        @Override
        public synchronized int read() {
            int b = super.read();
            if (b != -1) {
                read++;
            }
            return b;
        }

        @Override
        public synchronized int read(byte[] b, int off, int len) {
            int n = super.read(b, off, len);
            if (n > 0) {
                read += n;
            }
            return n;
        }
    }
}
