package dev.outbox.relay;

import dev.outbox.config.ProcessMain;
import dev.outbox.config.Settings;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * A real relay process ({@link RelayApp}, unchanged) that dies the way a relay killed by one row
 * would: its broker connection runs through a forwarder in the same JVM, and when the bytes about
 * to leave for the broker contain {@code POISON_MARKER} (a row's payload carries it), the JVM is
 * halted with {@code Runtime.halt} before they are forwarded. No shutdown hook, no finally block, no
 * outcome written: the rows it leased stay leased to it. Run by {@code RelayCrashLoopIT}, restarted
 * in a loop as a supervisor would.
 */
public final class PoisonRelayMain {
    /** What the process prints right before it halts; the test counts these. */
    static final String HALTING = "poison message about to leave for the broker: halting";

    private PoisonRelayMain() {}

    public static void main(String[] args) throws Exception {
        byte[] marker = System.getenv("POISON_MARKER").getBytes(StandardCharsets.ISO_8859_1);
        URI broker = new URI(System.getenv("OUTBOX_AMQP_URI"));
        ServerSocket forwarder = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(() -> accept(forwarder, broker, marker), "poison-forwarder");
        acceptor.setDaemon(true);
        acceptor.start();

        Map<String, String> env = new HashMap<>(System.getenv());
        env.put("OUTBOX_AMQP_URI", via(broker, forwarder.getLocalPort()));
        ProcessMain.run(
                "relay",
                () -> RelayApp.start(new Settings(env)),
                app -> "relay " + app.relay().config().relayId());
    }

    private static String via(URI broker, int port) {
        String userInfo = broker.getRawUserInfo() == null ? "" : broker.getRawUserInfo() + "@";
        // raw parts, concatenated: the multi-argument URI constructors would encode %2F a second time
        return broker.getScheme() + "://" + userInfo + "127.0.0.1:" + port
                + (broker.getRawPath() == null ? "" : broker.getRawPath())
                + (broker.getRawQuery() == null ? "" : "?" + broker.getRawQuery());
    }

    private static void accept(ServerSocket forwarder, URI broker, byte[] marker) {
        while (true) {
            try {
                Socket client = forwarder.accept();
                Socket upstream = new Socket(broker.getHost(), broker.getPort() == -1 ? 5672 : broker.getPort());
                pump(client, upstream, marker, "to-broker");
                pump(upstream, client, null, "from-broker");
            } catch (IOException e) {
                System.out.println("poison forwarder: " + e);
            }
        }
    }

    /** Copies {@code from} to {@code to}; with a marker, halts the JVM before forwarding bytes that hold it. */
    private static void pump(Socket from, Socket to, byte[] marker, String name) {
        Thread t = new Thread(
                () -> {
                    byte[] buffer = new byte[64 * 1024];
                    // the last marker.length - 1 bytes of the previous read: a marker split across reads
                    String carried = "";
                    String needle = marker == null ? null : new String(marker, StandardCharsets.ISO_8859_1);
                    try (InputStream in = from.getInputStream();
                            OutputStream out = to.getOutputStream()) {
                        int n;
                        while ((n = in.read(buffer)) >= 0) {
                            if (needle != null) {
                                String seen = carried + new String(buffer, 0, n, StandardCharsets.ISO_8859_1);
                                if (seen.contains(needle)) {
                                    System.out.println(HALTING);
                                    System.out.flush();
                                    Runtime.getRuntime().halt(137);
                                }
                                carried = seen.substring(Math.max(0, seen.length() - (needle.length() - 1)));
                            }
                            out.write(buffer, 0, n);
                            out.flush();
                        }
                    } catch (IOException e) {
                        // one side closed: the other is closed below, as a real connection would end
                        System.out.println("poison forwarder " + name + " ended: " + e);
                    } finally {
                        closeQuietly(from);
                        closeQuietly(to);
                    }
                },
                "poison-forwarder-" + name);
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            System.out.println("poison forwarder: closing: " + e);
        }
    }
}
