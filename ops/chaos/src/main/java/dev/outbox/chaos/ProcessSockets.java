package dev.outbox.chaos;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The TCP connections a process holds, read from {@code /proc}: the socket inodes among its file
 * descriptors, looked up in the kernel's TCP tables. Every relay names its database connections
 * {@code outbox-relay} alike, and its broker connection is one among the vhost's; the kernel tells
 * them apart by process, every 100 ms, for the price of reading a few small files.
 */
final class ProcessSockets {
    /** One connection of a process: its own port and the server's. */
    record Socket(int localPort, int remotePort) {}

    private static final Path[] TABLES = {Path.of("/proc/net/tcp"), Path.of("/proc/net/tcp6")};
    /** TCP_LISTEN in the kernel's tables: a server socket, not a connection. */
    private static final int LISTEN = 0x0A;

    private ProcessSockets() {}

    /** True where {@code /proc} has the TCP tables (Linux). */
    static boolean available() {
        return Files.isReadable(TABLES[0]);
    }

    /** The kernel's TCP sockets of this network namespace, by inode. */
    static Map<Long, Socket> table() throws IOException {
        Map<Long, Socket> out = new HashMap<>();
        for (Path table : TABLES) {
            if (!Files.isReadable(table)) {
                continue;
            }
            List<String> lines = Files.readAllLines(table);
            for (int i = 1; i < lines.size(); i++) {
                // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
                String[] f = lines.get(i).trim().split("\\s+");
                if (f.length < 10 || Integer.parseInt(f[3], 16) == LISTEN) {
                    continue;
                }
                long inode = Long.parseLong(f[9]);
                if (inode != 0) {
                    out.put(inode, new Socket(port(f[1]), port(f[2])));
                }
            }
        }
        return out;
    }

    /** The sockets among {@code pid}'s file descriptors; empty once it has exited. */
    static List<Socket> of(long pid, Map<Long, Socket> table) {
        List<Socket> out = new ArrayList<>();
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "fd"))) {
            for (Path fd : fds) {
                String target;
                try {
                    target = Files.readSymbolicLink(fd).toString();
                } catch (IOException closedMeanwhile) {
                    continue;
                }
                if (target.startsWith("socket:[")) {
                    Socket s = table.get(Long.parseLong(target.substring(8, target.length() - 1)));
                    if (s != null) {
                        out.add(s);
                    }
                }
            }
        } catch (IOException exited) {
            return List.of();
        }
        return out;
    }

    /** "0100007F:1538" or the IPv6 form: the port is the hex after the colon. */
    private static int port(String address) {
        return Integer.parseInt(address.substring(address.indexOf(':') + 1), 16);
    }
}
