package dev.outbox.testkit.image;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A memory and a CPU limit as a container runtime sets them on cgroup v1: a child of this test's
 * own cgroup in the {@code memory} and {@code cpu} hierarchies, with {@code memory.limit_in_bytes}
 * and a CFS quota. {@link ImageRoot#start} puts a process into them before it executes anything.
 * Cgroup v2 is not tried: there a child gets a memory limit only when this test's own cgroup
 * delegates the controller, which depends on how the machine was set up.
 */
public final class CgroupLimits implements AutoCloseable {
    private static final long PERIOD_US = 100_000;

    private final List<Path> groups;

    private CgroupLimits(List<Path> groups) {
        this.groups = groups;
    }

    /**
     * Makes the two cgroups.
     *
     * @throws UnsupportedOperationException naming why, when this machine cannot
     */
    public static CgroupLimits create(long memoryBytes, int cpus) {
        if (Files.exists(Path.of("/sys/fs/cgroup/cgroup.controllers"))) {
            throw new UnsupportedOperationException(
                    "cgroup v2: not tried (a child's memory limit needs the controller delegated to this test's cgroup)");
        }
        Map<String, String> own = ownCgroups();
        String name = "outbox-image-" + UUID.randomUUID();
        List<Path> made = new ArrayList<>();
        try {
            Path memory = make(own, "memory", name, made);
            Files.writeString(memory.resolve("memory.limit_in_bytes"), Long.toString(memoryBytes));
            Path cpu = make(own, "cpu", name, made);
            Files.writeString(cpu.resolve("cpu.cfs_period_us"), Long.toString(PERIOD_US));
            Files.writeString(cpu.resolve("cpu.cfs_quota_us"), Long.toString(cpus * PERIOD_US));
            return new CgroupLimits(List.copyOf(made));
        } catch (IOException | RuntimeException e) {
            new CgroupLimits(made).close();
            throw new UnsupportedOperationException("cannot make a cgroup v1 limit here: " + e.getMessage(), e);
        }
    }

    private static Path make(Map<String, String> own, String controller, String name, List<Path> made)
            throws IOException {
        Path hierarchy = Path.of("/sys/fs/cgroup", controller);
        String mine = own.get(controller);
        if (mine == null || !Files.isDirectory(hierarchy)) {
            throw new IOException("no cgroup v1 " + controller + " hierarchy at " + hierarchy);
        }
        Path dir = hierarchy.resolve(mine.substring(1)).resolve(name);
        Files.createDirectory(dir);
        made.add(dir);
        return dir;
    }

    /** Controller to this process's cgroup path, from {@code /proc/self/cgroup} ("4:memory:/a/b"). */
    private static Map<String, String> ownCgroups() {
        Map<String, String> own = new HashMap<>();
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/cgroup"))) {
                String[] f = line.split(":", 3);
                if (f.length == 3) {
                    for (String controller : f[1].split(",")) {
                        own.put(controller, f[2]);
                    }
                }
            }
        } catch (IOException e) {
            throw new UnsupportedOperationException("cannot read /proc/self/cgroup", e);
        }
        return own;
    }

    public List<Path> groups() {
        return groups;
    }

    /** Removes the cgroups; every process put into them must have ended. */
    @Override
    public void close() {
        for (Path dir : groups) {
            try {
                Files.deleteIfExists(dir);
            } catch (IOException e) {
                throw new IllegalStateException("cannot remove cgroup " + dir + ": " + e.getMessage(), e);
            }
        }
    }
}
