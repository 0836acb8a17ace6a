package dev.outbox.testkit.image;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * An image unpacked into a directory, and processes started from it the way a container runtime
 * starts them, without one: in a mount namespace of their own (so nothing mounted outlives them),
 * with {@code /proc}, the usual {@code /dev} nodes and the host's name lookups provided as a
 * runtime provides them, the image's {@code Env} as the whole environment, {@code chroot} into the
 * directory as the image's {@code User}. The network namespace stays the host's: loopback services
 * (the test database and broker) are reachable, as on a host-network container.
 */
public final class ImageRoot implements AutoCloseable {
    /** What Docker gives a process whose image sets no PATH. */
    private static final String DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

    private static final List<String> DEVICES = List.of("null", "zero", "full", "random", "urandom", "tty");

    private static final String RUNTIME = String.join(
            "\n",
            "set -eu",
            "root=$1; user=$2; cgroups=$3; shift 3",
            "image_path=$PATH",
            "PATH=/usr/sbin:/usr/bin:/sbin:/bin",
            "mount -t proc proc \"$root/proc\"",
            "for d in " + String.join(" ", DEVICES) + "; do mount --bind \"/dev/$d\" \"$root/dev/$d\"; done",
            "if [ -n \"$cgroups\" ]; then",
            "  mount --rbind /sys/fs/cgroup \"$root/sys/fs/cgroup\"",
            "  for g in $cgroups; do echo $$ > \"$g/cgroup.procs\"; done",
            "fi",
            "chroot_bin=$(command -v chroot)",
            "PATH=$image_path exec \"$chroot_bin\" --userspec=\"$user\" \"$root\" \"$@\"");

    private final ImageArchive image;
    private final Path root;

    private ImageRoot(ImageArchive image, Path root) {
        this.image = image;
        this.root = root;
    }

    /** Why images cannot be run on this machine, or empty when they can. */
    public static Optional<String> whyNotRunnable() {
        if (!System.getProperty("os.name", "")
                .toLowerCase(java.util.Locale.ROOT)
                .contains("linux")) {
            return Optional.of("running an image without a container engine needs Linux");
        }
        if (!isRoot()) {
            return Optional.of("running an image without a container engine needs root (chroot, mounts, owners)");
        }
        for (String tool : List.of("unshare", "chroot", "mount")) {
            if (onPath(tool).isEmpty()) {
                return Optional.of(tool + " is not installed (util-linux, coreutils)");
            }
        }
        return Optional.empty();
    }

    static boolean isRoot() {
        try {
            return ((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid")) == 0;
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    /** Unpacks {@code image} into {@code dir}, emptied first, and adds what a runtime adds. */
    public static ImageRoot unpack(ImageArchive image, Path dir) {
        try {
            ImageArchive.deleteTree(dir);
            image.unpack(dir);
            Path root = dir.toRealPath();
            // mount points and files a runtime provides and an image does not carry
            for (String d : List.of("proc", "dev", "sys/fs/cgroup", "etc")) {
                Files.createDirectories(root.resolve(d));
            }
            for (String device : DEVICES) {
                Files.writeString(root.resolve("dev").resolve(device), "");
            }
            for (String file : List.of("hosts", "resolv.conf")) {
                Path host = Path.of("/etc", file);
                if (Files.isRegularFile(host)) {
                    Files.copy(host, root.resolve("etc").resolve(file), StandardCopyOption.REPLACE_EXISTING);
                }
            }
            return new ImageRoot(image, root);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot unpack " + image.path() + " into " + dir, e);
        }
    }

    public Path root() {
        return root;
    }

    /**
     * Starts {@code command} (the image's entrypoint and cmd, or another) inside the image, its
     * output to {@code output}. The environment is the image's {@code Env} and then {@code env};
     * {@code limits}, when given, hold the process from its first instruction on. The returned
     * process is the program itself (unshare, the shell and chroot each exec the next), so
     * {@link Process#destroy()} sends it the SIGTERM a runtime sends.
     */
    public Process start(List<String> command, Map<String, String> env, Optional<CgroupLimits> limits, Path output)
            throws IOException {
        String user = image.user().isBlank() ? "0:0" : image.user();
        List<String> argv = new ArrayList<>(List.of(
                onPath("unshare").orElseThrow().toString(),
                "--mount",
                "--propagation",
                "private",
                "--",
                onPath("sh").orElseThrow().toString(),
                "-c",
                RUNTIME,
                "runtime",
                root.toString(),
                user,
                limits.map(l -> l.groups().stream().map(Path::toString).collect(Collectors.joining(" ")))
                        .orElse("")));
        argv.addAll(command);
        ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true).redirectOutput(output.toFile());
        Map<String, String> environment = new LinkedHashMap<>(image.environment());
        environment.putIfAbsent("PATH", DEFAULT_PATH);
        environment.putAll(env);
        pb.environment().clear();
        pb.environment().putAll(environment);
        return pb.start();
    }

    /** The image's entrypoint followed by its cmd: what a runtime runs when told nothing else. */
    public List<String> defaultCommand() {
        List<String> command = new ArrayList<>(image.entrypoint());
        command.addAll(image.cmd());
        return command;
    }

    private static Optional<Path> onPath(String tool) {
        String path = System.getenv().getOrDefault("PATH", "") + ":/usr/sbin:/usr/bin:/sbin:/bin";
        for (String dir : path.split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
                return Optional.of(Path.of(dir, tool));
            }
        }
        return Optional.empty();
    }

    /** Removes the directory; every process started from it must have ended (their mounts go with them). */
    @Override
    public void close() {
        try {
            ImageArchive.deleteTree(root);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove " + root, e);
        }
    }
}
