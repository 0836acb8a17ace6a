package dev.outbox.api.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * The body limit over generated bodies, limits and read patterns (single bytes, small and large
 * buffers, skips): a body within the limit arrives whole and unchanged, one over it throws
 * {@link RequestBodyTooLargeException} having read at most one byte past the limit, and a stream
 * that breaks off is the client's {@link RequestBodyUnreadableException}.
 */
class BoundedEntityStreamTest {

    @Property(tries = 1_000)
    void aBodyWithinTheLimitArrivesWholeAndOneOverItIsRefusedAtTheLimit(
            @ForAll @IntRange(min = 0, max = 5_000) int size,
            @ForAll @IntRange(min = 1, max = 5_000) int limit,
            @ForAll @Size(min = 1, max = 8) List<@IntRange(min = 0, max = 9_000) Integer> reads) {
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

    @Property(tries = 300)
    void readAllStopsOneBytePastTheLimit(
            @ForAll @IntRange(min = 0, max = 20_000) int size, @ForAll @IntRange(min = 1, max = 20_000) int limit)
            throws IOException {
        CountingStream source = new CountingStream(new byte[size]);
        if (size <= limit) {
            assertEquals(size, BoundedEntityStream.readAll(source, limit).length);
        } else {
            assertThrows(RequestBodyTooLargeException.class, () -> BoundedEntityStream.readAll(source, limit));
            assertTrue(source.read <= (long) limit + 1, "read " + source.read + " of " + size);
        }
    }

    @Example
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
