package dev.outbox;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * How the outbox's processes name themselves: host name and pid. A relay's default id is this; a
 * consumer may use it to say which of its instances applied a message.
 */
public final class ProcessIds {
    private ProcessIds() {}

    /** {@code <host>-<pid>}, e.g. {@code worker-3-4711}. */
    public static String hostAndPid() {
        return hostName() + "-" + ProcessHandle.current().pid();
    }

    /** This machine's host name, or {@code unknown-host} when it cannot name itself. */
    public static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "unknown-host";
        }
    }
}
