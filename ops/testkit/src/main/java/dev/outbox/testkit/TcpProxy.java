package dev.outbox.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy between a process under test and a real server (PostgreSQL, RabbitMQ), to cause
 * network faults for real: refuse new connections, reset live ones, or stall them (bytes stop
 * flowing, sockets stay open, as with a dead switch or a paused VM).
 */
public final class TcpProxy implements AutoCloseable {
    /** How new connections are treated. */
    public enum Mode {
        /** Forward to the target. */
        FORWARD,
        /** Accept, then reset at once: the client sees its connection fail; each attempt is counted. */
        RESET
    }

    private final String targetHost;
    private final int targetPort;
    private final ServerSocket server;
    private final Set<Link> links = ConcurrentHashMap.newKeySet();
    private final AtomicInteger accepted = new AtomicInteger();
    private final AtomicInteger rejected = new AtomicInteger();
    private final Object stallLock = new Object();
    private volatile Mode mode = Mode.FORWARD;
    private volatile boolean stalled;
    private volatile long latencyMillis;
    private volatile boolean closed;
    private final boolean serverLikeTimeouts;
    private final java.util.concurrent.atomic.AtomicReference<AnswerTrap> trap =
            new java.util.concurrent.atomic.AtomicReference<>();
    private final AtomicInteger answersLost = new AtomicInteger();

    /** Armed by {@link #loseTheAnswerToTheRequestAfter}: whose next request's answer is lost. */
    private record AnswerTrap(String after) {}

    private TcpProxy(String targetHost, int targetPort, InetAddress bind, boolean serverLikeTimeouts)
            throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.serverLikeTimeouts = serverLikeTimeouts;
        this.server = new ServerSocket();
        server.setReuseAddress(true);
        server.bind(new InetSocketAddress(bind, 0));
        Thread acceptor = new Thread(this::acceptLoop, "tcp-proxy-accept-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public static TcpProxy start(String targetHost, int targetPort) throws IOException {
        return new TcpProxy(targetHost, targetPort, InetAddress.getLoopbackAddress(), false);
    }

    /**
     * A forwarder that stands in for the server's own TCP stack, for clients on the far side of a
     * link that may be cut ({@link dev.outbox.testkit.net.NetworkSandbox}): it notices a client
     * that went silent as a server with TCP keepalives and a user timeout would (keepalive probes
     * after {@value #SILENT_IDLE_SECONDS} s idle, a write to the client stuck for {@value
     * #STUCK_WRITE_MILLIS} ms), and then closes the server's side, so that the server sees its
     * client gone (its session ends, its locks are freed) as it would behind a real partition.
     */
    public static TcpProxy forwarder(InetAddress bind, String targetHost, int targetPort) throws IOException {
        return new TcpProxy(targetHost, targetPort, bind, true);
    }

    static final int SILENT_IDLE_SECONDS = 2;
    static final long STUCK_WRITE_MILLIS = 5_000;

    public String host() {
        return server.getInetAddress().getHostAddress();
    }

    public int port() {
        return server.getLocalPort();
    }

    /** Connections forwarded so far. */
    public int accepted() {
        return accepted.get();
    }

    /** Connection attempts reset while in {@link Mode#RESET}. */
    public int rejected() {
        return rejected.get();
    }

    public int liveConnections() {
        return links.size();
    }

    /** The outage: reset every live connection and every new attempt until {@link #restore()}. */
    public void cut() {
        mode = Mode.RESET;
        resetAll();
    }

    /** Forward again (and end a stall). */
    public void restore() {
        mode = Mode.FORWARD;
        resume();
    }

    /** Resets every live connection (TCP RST); new connections are still forwarded. */
    public void resetAll() {
        for (Link l : links) {
            l.reset();
        }
    }

    /**
     * Arms a one-shot fault for the window no timeout can model: the server does what a client
     * asked and the client never learns it. On the first connection where the client sends a
     * chunk of bytes containing {@code marker}, its next request (the next chunk) still reaches
     * the server; the server's answer is read and thrown away, and both sides of that connection
     * are reset. With {@code "message_outbox_lease_token_seq"} (a claim's text) the request after
     * the claim is its COMMIT (pgjdbc sends it as a prepared statement without its text): the
     * claim commits on the server while the relay sees the connection fail during its commit.
     * The marker is matched within one chunk read from the socket (a statement's text, sent in one
     * write over loopback, arrives in one here); pgjdbc sends a statement's text only until its
     * fifth execution on a connection, so arm this before the client's first statement of that kind.
     */
    public void loseTheAnswerToTheRequestAfter(String marker) {
        trap.set(new AnswerTrap(marker));
    }

    /** Answers swallowed by {@link #loseTheAnswerToTheRequestAfter}: 1 once it has fired. */
    public int answersLost() {
        return answersLost.get();
    }

    /** Stops moving bytes on every connection, old and new, without closing anything. */
    public void stall() {
        stalled = true;
    }

    /**
     * Holds every chunk of bytes this long before passing it on, both ways, on every connection
     * (zero: none): a slow or distant link, under which confirms and heartbeats arrive late.
     */
    public void latency(java.time.Duration delay) {
        latencyMillis = delay.toMillis();
    }

    public void resume() {
        synchronized (stallLock) {
            stalled = false;
            stallLock.notifyAll();
        }
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                if (closed) {
                    return;
                }
                continue;
            }
            if (mode == Mode.RESET) {
                rejected.incrementAndGet();
                resetQuietly(client);
                continue;
            }
            try {
                if (serverLikeTimeouts) {
                    client.setKeepAlive(true);
                    client.setOption(jdk.net.ExtendedSocketOptions.TCP_KEEPIDLE, SILENT_IDLE_SECONDS);
                    client.setOption(jdk.net.ExtendedSocketOptions.TCP_KEEPINTERVAL, 1);
                    client.setOption(jdk.net.ExtendedSocketOptions.TCP_KEEPCOUNT, 3);
                }
                // Nagle's algorithm on a relay hop holds a small reply back until the previous one is
                // acknowledged (delayed ACK, 40 ms): a proxy must not add that to every round trip
                client.setTcpNoDelay(true);
                Socket upstream = new Socket();
                upstream.setTcpNoDelay(true);
                upstream.connect(new InetSocketAddress(targetHost, targetPort), 5_000);
                Link link = new Link(client, upstream);
                links.add(link);
                accepted.incrementAndGet();
                link.start();
            } catch (IOException e) {
                resetQuietly(client);
            }
        }
    }

    private void awaitNotStalled() throws InterruptedException {
        synchronized (stallLock) {
            while (stalled && !closed) {
                stallLock.wait();
            }
        }
    }

    private final class Link {
        private final Socket client;
        private final Socket upstream;
        /** When the write toward the client that is still under way began; 0 while none is. */
        private volatile long clientWriteSince;
        /** The armed trap's first marker has passed on this connection. */
        private volatile boolean sawTrapStart;
        /** The server's next answer on this connection is lost, and the connection with it. */
        private volatile boolean loseNextAnswer;

        Link(Socket client, Socket upstream) {
            this.client = client;
            this.upstream = upstream;
        }

        void start() {
            pump(client, upstream, "up");
            pump(upstream, client, "down");
            if (serverLikeTimeouts) {
                Thread watchdog = new Thread(this::watchClientWrites, "tcp-proxy-watchdog-" + port());
                watchdog.setDaemon(true);
                watchdog.start();
            }
        }

        /** A write to the client that makes no progress ends the connection, as TCP_USER_TIMEOUT would. */
        private void watchClientWrites() {
            while (!client.isClosed() && !closed) {
                long since = clientWriteSince;
                if (since != 0 && System.nanoTime() - since > STUCK_WRITE_MILLIS * 1_000_000) {
                    close();
                    return;
                }
                try {
                    Thread.sleep(250);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        private void pump(Socket from, Socket to, String direction) {
            Thread t = new Thread(
                    () -> {
                        byte[] buf = new byte[16 * 1024];
                        try (InputStream in = from.getInputStream();
                                OutputStream out = to.getOutputStream()) {
                            int n;
                            while ((n = in.read(buf)) >= 0) {
                                awaitNotStalled();
                                long delay = latencyMillis;
                                if (delay > 0) {
                                    Thread.sleep(delay);
                                }
                                boolean towardClient = to == client;
                                if (!towardClient) {
                                    watchForTrap(buf, n);
                                } else if (loseNextAnswer) {
                                    answersLost.incrementAndGet();
                                    reset();
                                    return;
                                }
                                if (towardClient) {
                                    clientWriteSince = System.nanoTime();
                                }
                                out.write(buf, 0, n);
                                out.flush();
                                if (towardClient) {
                                    clientWriteSince = 0;
                                }
                            }
                        } catch (IOException | InterruptedException e) {
                            // the other side went away or we reset it: close both ends below
                        } finally {
                            close();
                        }
                    },
                    "tcp-proxy-" + direction + "-" + port());
            t.setDaemon(true);
            t.start();
        }

        /** On the client's bytes: arms this connection's answer to be lost when the trap's markers pass. */
        private void watchForTrap(byte[] buf, int n) {
            AnswerTrap t = trap.get();
            if (t == null) {
                return;
            }
            if (sawTrapStart) {
                loseNextAnswer = trap.compareAndSet(t, null);
            } else {
                sawTrapStart = new String(buf, 0, n, java.nio.charset.StandardCharsets.ISO_8859_1).contains(t.after());
            }
        }

        void reset() {
            resetQuietly(client);
            resetQuietly(upstream);
            links.remove(this);
        }

        void close() {
            links.remove(this);
            try {
                client.close();
            } catch (IOException ignored) {
                // already closed
            }
            try {
                upstream.close();
            } catch (IOException ignored) {
                // already closed
            }
        }
    }

    private static void resetQuietly(Socket s) {
        try {
            s.setSoLinger(true, 0); // close with RST, not FIN: an abrupt failure, not a goodbye
            s.close();
        } catch (SocketException ignored) {
            // already closed
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public void close() {
        closed = true;
        resume();
        try {
            server.close();
        } catch (IOException ignored) {
            // already closed
        }
        resetAll();
    }
}
