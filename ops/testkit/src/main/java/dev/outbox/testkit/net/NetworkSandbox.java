package dev.outbox.testkit.net;

import dev.outbox.testkit.TcpProxy;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A network namespace for a process under test, joined to this host by veth pairs, one per
 * dependency, so that a dependency can be partitioned for real: {@link Link#partition()} takes
 * the host's end of the pair down, and packets are dropped without a reset, as behind a dead
 * switch or a crashed host. The process inside reaches a service through a {@link
 * TcpProxy#forwarder forwarder} on the host's end of its link (PostgreSQL and RabbitMQ listen on
 * loopback only), which stands in for the server's TCP stack in noticing a client gone silent.
 *
 * <p>Only ever sends traffic to loopback and to this namespace. Needs root and {@code ip}
 * (iproute2); {@link #available()} says whether this machine can. Every namespace and veth it
 * makes is removed by {@link #close()}, and ones left by a test JVM that died are removed the
 * next time one is created.
 */
public final class NetworkSandbox implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NetworkSandbox.class);
    private static final String PREFIX = "obx-";
    private static final AtomicInteger SANDBOXES = new AtomicInteger();
    private static final long PID = ProcessHandle.current().pid();
    private static final int LINKS_PER_SANDBOX = 8;
    private static final int SANDBOXES_PER_JVM = 8;

    private final String namespace;
    private final int index;
    private final List<Link> links = new ArrayList<>();
    private boolean closed;

    /** One veth pair between this host and the sandbox, and maybe a forwarder on the host's end. */
    public final class Link {
        private final String hostDevice;
        private final String hostAddress;
        private final String sandboxAddress;
        private final TcpProxy forwarder;
        private volatile boolean partitioned;

        private Link(String hostDevice, String hostAddress, String sandboxAddress, TcpProxy forwarder) {
            this.hostDevice = hostDevice;
            this.hostAddress = hostAddress;
            this.sandboxAddress = sandboxAddress;
            this.forwarder = forwarder;
        }

        /** The host's end: where the process inside reaches the forwarded service. */
        public String hostAddress() {
            return hostAddress;
        }

        /** The sandbox's end: where this host reaches a server the process inside runs. */
        public String sandboxAddress() {
            return sandboxAddress;
        }

        /** The forwarder's port on {@link #hostAddress()}. */
        public int port() {
            if (forwarder == null) {
                throw new IllegalStateException("link " + hostDevice + " forwards nothing");
            }
            return forwarder.port();
        }

        /** Drops every packet on this link from now on, both ways, without a reset. */
        public void partition() throws IOException {
            ip("link", "set", hostDevice, "down");
            partitioned = true;
        }

        /** Lets packets through again; connections that survived carry on. */
        public void heal() throws IOException {
            ip("link", "set", hostDevice, "up");
            partitioned = false;
        }

        public boolean partitioned() {
            return partitioned;
        }
    }

    private NetworkSandbox(String namespace, int index) {
        this.namespace = namespace;
        this.index = index;
    }

    /** True when this machine lets the tests make namespaces (Linux, root, iproute2). */
    public static boolean available() {
        if (!System.getProperty("os.name", "")
                .toLowerCase(java.util.Locale.ROOT)
                .contains("linux")) {
            return false;
        }
        try {
            if (!"0".equals(run(List.of("id", "-u")).trim())) {
                return false;
            }
            return Files.isExecutable(Path.of("/usr/sbin/ip")) || Files.isExecutable(Path.of("/sbin/ip"));
        } catch (IOException e) {
            return false;
        }
    }

    /** Makes a new namespace with only loopback in it. */
    public static NetworkSandbox create() throws IOException {
        removeAbandoned();
        int index = SANDBOXES.getAndIncrement();
        String name = PREFIX + PID + "-" + index;
        NetworkSandbox sandbox = new NetworkSandbox(name, index);
        ip("netns", "add", name);
        try {
            sandbox.inside("ip", "link", "set", "lo", "up");
        } catch (IOException e) {
            sandbox.close();
            throw e;
        }
        return sandbox;
    }

    public String namespace() {
        return namespace;
    }

    /**
     * A link whose host end forwards to {@code targetHost:targetPort} (a service on loopback): the
     * process inside connects to {@link Link#hostAddress()}:{@link Link#port()}.
     */
    public Link forward(String targetHost, int targetPort) throws IOException {
        Link bare = newLink();
        TcpProxy forwarder = TcpProxy.forwarder(InetAddress.getByName(bare.hostAddress), targetHost, targetPort);
        Link link = new Link(bare.hostDevice, bare.hostAddress, bare.sandboxAddress, forwarder);
        links.set(links.size() - 1, link);
        return link;
    }

    /** A link without a forwarder: this host reaches servers inside at {@link Link#sandboxAddress()}. */
    public Link link() throws IOException {
        return newLink();
    }

    private Link newLink() throws IOException {
        int n = links.size();
        if (n >= LINKS_PER_SANDBOX) {
            throw new IllegalStateException(LINKS_PER_SANDBOX + " links per sandbox are plenty");
        }
        if (index >= SANDBOXES_PER_JVM) {
            // addresses are handed out per (pid, sandbox, link): past this, two live sandboxes of
            // this JVM would share a /30
            throw new IllegalStateException("at most " + SANDBOXES_PER_JVM + " sandboxes per JVM");
        }
        // a /30 per link in 169.254.0.0/16 (link-local: never routed anywhere), chosen by pid,
        // sandbox and link so that concurrent test JVMs do not collide
        int slot = (int) ((PID % 250) * 64 + index * LINKS_PER_SANDBOX + n);
        int third = 1 + slot / 64;
        int fourth = (slot % 64) * 4;
        String hostAddress = "169.254." + third + "." + (fourth + 1);
        String sandboxAddress = "169.254." + third + "." + (fourth + 2);
        String tag = Long.toString(PID % 100_000) + "x" + index + "x" + n;
        String hostDevice = "oxh" + tag;
        String sandboxDevice = "oxs" + tag;
        ip("link", "add", hostDevice, "type", "veth", "peer", "name", sandboxDevice);
        Link link = new Link(hostDevice, hostAddress, sandboxAddress, null);
        links.add(link);
        ip("link", "set", sandboxDevice, "netns", namespace);
        ip("addr", "add", hostAddress + "/30", "dev", hostDevice);
        ip("link", "set", hostDevice, "up");
        inside("ip", "addr", "add", sandboxAddress + "/30", "dev", sandboxDevice);
        inside("ip", "link", "set", sandboxDevice, "up");
        return link;
    }

    /** {@code command} run inside the sandbox: the prefix for a process under test. */
    public List<String> wrap(List<String> command) {
        List<String> out = new ArrayList<>(List.of(ipBinary(), "netns", "exec", namespace));
        out.addAll(command);
        return out;
    }

    private void inside(String... command) throws IOException {
        run(wrap(List.of(command)));
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Link l : links) {
            if (l.forwarder != null) {
                l.forwarder.close();
            }
            try {
                ip("link", "del", l.hostDevice);
            } catch (IOException e) {
                LOG.debug("removing {}: {}", l.hostDevice, e.getMessage());
            }
        }
        try {
            ip("netns", "del", namespace);
        } catch (IOException e) {
            LOG.warn("could not remove network namespace {}: {}", namespace, e.getMessage());
        }
    }

    /** Removes namespaces (and their veths) left by test JVMs that are gone. */
    private static synchronized void removeAbandoned() throws IOException {
        for (String line : run(List.of(ipBinary(), "netns", "list")).split("\n")) {
            String name = line.trim().split(" ")[0];
            if (!name.startsWith(PREFIX)) {
                continue;
            }
            String[] parts = name.substring(PREFIX.length()).split("-");
            long owner;
            try {
                owner = Long.parseLong(parts[0]);
            } catch (NumberFormatException e) {
                continue;
            }
            if (owner != PID && ProcessHandle.of(owner).isEmpty()) {
                LOG.info("removing network namespace {} left by a test JVM that is gone", name);
                removeQuietly(List.of(ipBinary(), "netns", "del", name));
            }
        }
        for (String line : run(List.of(ipBinary(), "-o", "link", "show")).split("\n")) {
            String[] f = line.split(":\\s+");
            if (f.length < 2 || !f[1].startsWith("oxh")) {
                continue;
            }
            String device = f[1].split("@")[0];
            long owner;
            try {
                owner = Long.parseLong(device.substring(3, device.indexOf('x', 3)));
            } catch (RuntimeException e) {
                continue;
            }
            if (owner != PID % 100_000 && ProcessHandle.allProcesses().noneMatch(h -> h.pid() % 100_000 == owner)) {
                // deleting a namespace above takes its veths with it, a moment later: the host's
                // end listed here may be gone by now, which is what was wanted
                removeQuietly(List.of(ipBinary(), "link", "del", device));
            }
        }
    }

    /** Leftovers of another JVM: one that cannot be removed (or is already gone) is not our failure. */
    private static void removeQuietly(List<String> command) {
        try {
            run(command);
        } catch (IOException e) {
            LOG.info("leftover not removed: {}", e.getMessage());
        }
    }

    private static void ip(String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(ipBinary());
        command.addAll(List.of(args));
        run(command);
    }

    private static String ipBinary() {
        return Files.isExecutable(Path.of("/usr/sbin/ip")) ? "/usr/sbin/ip" : "/sbin/ip";
    }

    private static String run(List<String> command) throws IOException {
        // the output goes to a file, not a pipe: reading a pipe to its end would wait for as long
        // as the command hangs, and the timeout below would never be reached
        Path output = Files.createTempFile("obx-ip", ".out");
        String out;
        try {
            Process p = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(output.toFile())
                    .start();
            try {
                if (!p.waitFor(10, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    throw new IOException(String.join(" ", command) + " timed out");
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
                throw new IOException(String.join(" ", command) + " interrupted", e);
            }
            out = Files.readString(output, StandardCharsets.UTF_8);
            if (p.exitValue() != 0) {
                throw new IOException(String.join(" ", command) + " failed (" + p.exitValue() + "): " + out.trim());
            }
        } finally {
            Files.deleteIfExists(output);
        }
        return out;
    }
}
