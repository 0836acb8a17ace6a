package dev.outbox.api.health;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/**
 * Is the AMQP broker there? The API has no broker client (it never publishes), so readiness
 * opens a TCP connection, sends the AMQP 0-9-1 protocol header and checks that the broker answers
 * with a method frame ({@code connection.start}); then it hangs up. Results are cached, so a
 * probe every few seconds does not fill the broker's log with short connections.
 */
public final class BrokerProbe {
    private static final byte[] PROTOCOL_HEADER = {'A', 'M', 'Q', 'P', 0, 0, 9, 1};
    private static final int FRAME_METHOD = 1;

    private final String host;
    private final int port;
    private final long cacheNanos;
    private volatile String last;
    private volatile long checkedAt;

    private BrokerProbe(String host, int port, long cacheNanos) {
        this.host = host;
        this.port = port;
        this.cacheNanos = cacheNanos;
    }

    /** A probe for the broker of an {@code amqp://} URI, or null when none is configured. */
    public static BrokerProbe of(String amqpUri) {
        if (amqpUri == null || amqpUri.isBlank()) {
            return null;
        }
        URI u = URI.create(amqpUri);
        int port = u.getPort() != -1 ? u.getPort() : "amqps".equals(u.getScheme()) ? 5671 : 5672;
        return new BrokerProbe(u.getHost(), port, 10_000_000_000L);
    }

    public synchronized String check() {
        long now = System.nanoTime();
        if (last != null && now - checkedAt < cacheNanos) {
            return last;
        }
        last = probe();
        checkedAt = now;
        return last;
    }

    private String probe() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), 1_000);
            s.setSoTimeout(2_000);
            OutputStream out = s.getOutputStream();
            out.write(PROTOCOL_HEADER);
            out.flush();
            InputStream in = s.getInputStream();
            int frameType = in.read();
            if (frameType == FRAME_METHOD) {
                return "UP";
            }
            return "DOWN: unexpected answer to the AMQP header (" + frameType + ")";
        } catch (IOException e) {
            return "DOWN: " + host + ":" + port + " " + e.getClass().getSimpleName();
        }
    }

    static String header() {
        return new String(PROTOCOL_HEADER, StandardCharsets.US_ASCII);
    }
}
