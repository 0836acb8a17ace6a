package dev.outbox.api.http;

import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * The request body as everything in the API reads it: at most {@code limit} bytes, whether the
 * client declared a length or sent chunks. Reading past the limit throws
 * {@link RequestBodyTooLargeException}; a body that breaks off throws
 * {@link RequestBodyUnreadableException}, so neither is mistaken for a fault of the server.
 */
public final class BoundedEntityStream extends FilterInputStream {
    private final long limit;
    private long count;

    public BoundedEntityStream(InputStream in, long limit) {
        super(in);
        this.limit = limit;
    }

    @Override
    public int read() throws IOException {
        int b;
        try {
            b = super.read();
        } catch (RequestBodyTooLargeException | RequestBodyUnreadableException e) {
            throw e;
        } catch (IOException e) {
            throw new RequestBodyUnreadableException(e);
        }
        if (b != -1) {
            counted(1);
        }
        return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        // one byte more than the limit allows is enough to know the body is too large
        int asked = (int) Math.min(len, Math.max(1, limit - count + 1));
        int n;
        try {
            n = super.read(b, off, asked);
        } catch (RequestBodyTooLargeException | RequestBodyUnreadableException e) {
            throw e;
        } catch (IOException e) {
            throw new RequestBodyUnreadableException(e);
        }
        if (n > 0) {
            counted(n);
        }
        return n;
    }

    @Override
    public long skip(long n) throws IOException {
        byte[] buffer = new byte[(int) Math.min(n, 8192)];
        long skipped = 0;
        while (skipped < n) {
            int r = read(buffer, 0, (int) Math.min(buffer.length, n - skipped));
            if (r == -1) {
                break;
            }
            skipped += r;
        }
        return skipped;
    }

    @Override
    public boolean markSupported() {
        return false;
    }

    private void counted(int n) throws RequestBodyTooLargeException {
        count += n;
        if (count > limit) {
            throw new RequestBodyTooLargeException(limit);
        }
    }

    /** The whole body, or {@link RequestBodyTooLargeException} once it passes {@code limit}. */
    public static byte[] readAll(InputStream in, long limit) throws IOException {
        InputStream bounded = in instanceof BoundedEntityStream ? in : new BoundedEntityStream(in, limit);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        int n;
        while ((n = bounded.read(buffer, 0, buffer.length)) != -1) {
            out.write(buffer, 0, n);
            if (out.size() > limit) {
                throw new RequestBodyTooLargeException(limit);
            }
        }
        return out.toByteArray();
    }
}
