package dev.outbox.testkit.image;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.abort;

import dev.outbox.testkit.image.ImageArchive.Entry;
import dev.outbox.testkit.image.ImageArchive.Layer;
import dev.outbox.testkit.otlp.OtlpReceiver;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The image {@code jib:buildTar} wrote for a process, opened as a file and then run without a
 * container engine (ops/deploy/README.md, "Images"). A subclass names what it expects ({@link #spec()}); the
 * run needs root and is skipped elsewhere with the reason, except under
 * {@code OUTBOX_REQUIRE_IMAGE_RUN=1}, which CI sets and where it fails instead.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class ContainerImageContract {
    private static final String USER = "65532:65532";
    private static final String JAVA = "/opt/java/bin/java";
    /** A whole JDK is over 300 MiB unpacked; this JRE and the largest application about 135. */
    private static final long MOST_UNPACKED_BYTES = 200L << 20;

    private static final Set<String> JDK_TOOLS = Set.of(
            "javac",
            "jar",
            "jlink",
            "jmod",
            "jshell",
            "jdeps",
            "jpackage",
            "jarsigner",
            "javadoc",
            "jdb",
            "jcmd",
            "jstack",
            "jmap",
            "jconsole",
            "keytool",
            "jfr",
            "serialver");
    private static final List<String> PROGRAM_DIRECTORIES =
            List.of("/bin/", "/sbin/", "/usr/bin/", "/usr/sbin/", "/usr/local/bin/", "/usr/local/sbin/");
    private static final long RUN_MEMORY = 512L << 20;
    private static final long PROBE_MEMORY = 384L << 20;

    private ImageSpec spec;
    private ImageArchive image;
    private ImageRoot root;

    /** What this image must be. */
    protected abstract ImageSpec spec();

    @BeforeAll
    void openTheImage() {
        if (Boolean.getBoolean("outbox.images.skipped")) {
            abort("the build made no images (-Djib.skip=true, or not on Linux)");
        }
        spec = spec();
        assertTrue(Files.isRegularFile(spec.tar()), spec.tar() + " is missing: jib:buildTar runs in `package`");
        image = ImageArchive.read(spec.tar());
    }

    @AfterAll
    void removeTheUnpackedImage() {
        if (root != null) {
            root.close();
        }
    }

    @Test
    void isTaggedWithItsAgreedName() {
        String version = System.getProperty("outbox.project.version");
        if (version == null) {
            assertTrue(image.tag().startsWith(spec.repository() + ":"), image.tag());
        } else {
            assertEquals(spec.repository() + ":" + version, image.tag());
        }
    }

    @Test
    void entrypointIsJavaWithContainerAwareFlagsThenTheMainClass() {
        List<String> entrypoint = image.entrypoint();
        assertEquals("java", entrypoint.get(0), entrypoint.toString());
        assertEquals(
                List.of("-cp", "@/app/jib-classpath-file", spec.mainClass()),
                entrypoint.subList(entrypoint.size() - 3, entrypoint.size()));
        assertEquals(spec.args(), image.cmd(), "the program arguments");
        List<String> flags = jvmFlags();
        assertTrue(flags.stream().anyMatch(f -> f.startsWith("-XX:MaxRAMPercentage=")), flags.toString());
        assertTrue(flags.contains("-XX:+ExitOnOutOfMemoryError"), flags.toString());
        assertTrue(
                flags.stream().noneMatch(f -> f.startsWith("-Xmx") || f.startsWith("-XX:MaxHeapSize")),
                "a fixed heap ignores the container's memory limit: " + flags);
        assertFalse(image.environment().containsKey("JAVA_TOOL_OPTIONS"), "JAVA_TOOL_OPTIONS is the operator's");
        assertFalse(image.environment().containsKey("JDK_JAVA_OPTIONS"), "JDK_JAVA_OPTIONS is the operator's");
        Entry java = image.resolve("java").orElseThrow(() -> new AssertionError("java is not on the image's PATH"));
        assertEquals(JAVA, java.path());
        assertTrue(java.executable(), JAVA + " is not executable");
    }

    @Test
    void runsAsTheNumericNonRootUser() {
        assertEquals(USER, image.user());
        Entry home = image.files().get("/home/nonroot");
        assertTrue(home != null && home.uid() == 65532, "the user's home is its own");
    }

    @Test
    void exposesItsPort() {
        assertEquals(List.of(spec.port() + "/tcp"), image.exposedPorts());
    }

    @Test
    void baseLayerHoldsTheJreAndTheOthersOnlyTheApplication() {
        List<Layer> layers = image.layers();
        assertTrue(layers.size() >= 2, "a base layer and the application's");
        assertTrue(
                layers.get(0).entries().stream().anyMatch(e -> e.path().equals(JAVA)),
                "the first layer is the base, with the JRE");
        for (Layer layer : layers.subList(1, layers.size())) {
            for (Entry e : layer.entries()) {
                assertTrue(
                        e.path().equals("/app") || e.path().startsWith("/app/"),
                        "an application layer changes the base: " + e.path());
            }
        }
        Map<String, Entry> files = image.files();
        assertEquals(01777, files.get("/tmp").mode(), "/tmp is writable by all, sticky");
        assertTrue(files.containsKey("/app/jib-classpath-file"));
    }

    @Test
    void holdsNoShellNoPackageManagerAndNoJdkTool() {
        Map<String, Entry> files = image.files();
        List<String> programs = new ArrayList<>();
        for (Entry e : files.values()) {
            boolean inProgramDirectory =
                    PROGRAM_DIRECTORIES.stream().anyMatch(d -> e.path().startsWith(d));
            if (e.kind() != ImageArchive.Kind.DIRECTORY && (inProgramDirectory || JDK_TOOLS.contains(e.name()))) {
                programs.add(e.path());
            }
            if (e.path().startsWith("/opt/java/bin/") && !e.path().equals(JAVA)) {
                programs.add(e.path());
            }
        }
        assertEquals(List.of(), programs, "java is the only program");
        assertFalse(files.containsKey("/var/lib/dpkg"), "no package database");
    }

    @Test
    void holdsTheBrokerClientOnlyWhereTheProcessTalksToTheBroker() {
        List<String> clients = image.files().keySet().stream()
                .filter(p -> p.startsWith("/app/libs/amqp-client-"))
                .toList();
        if (spec.brokerClient()) {
            assertEquals(1, clients.size(), "amqp-client in /app/libs: " + clients);
        } else {
            assertEquals(List.of(), clients, "only the relay and the consumers talk to the broker");
        }
    }

    @Test
    void sizeIsReportedAndBounded() {
        long unpacked = 0;
        StringBuilder report = new StringBuilder();
        List<String> history = image.layerHistory();
        for (int i = 0; i < image.layers().size(); i++) {
            Layer layer = image.layers().get(i);
            unpacked += layer.unpackedSize();
            report.append(String.format(
                    "%n  layer %d (%s): %s in the tar, %s unpacked",
                    i,
                    i < history.size() ? history.get(i) : "?",
                    mib(layer.archivedSize()),
                    mib(layer.unpackedSize())));
        }
        System.out.printf(
                "[image] %s: %s (tar %s, %s unpacked)%s%n",
                image.tag(), spec.tar(), mib(image.archiveSize()), mib(unpacked), report);
        assertTrue(unpacked < MOST_UNPACKED_BYTES, "unpacked " + mib(unpacked) + ": a JDK or a shell crept in?");
    }

    /**
     * Traced, as a deployment that sets an OTLP endpoint runs it: the exporter's sender needs a JDK
     * module the base must carry (a base without {@code java.net.http} died here at start).
     */
    @Test
    void startsReadyAsItsUserAndStopsCleanlyOnSigterm() throws Exception {
        requireRunnable();
        Optional<CgroupLimits> limits = runLimits();
        int port = freePort();
        OtlpReceiver otlp = OtlpReceiver.start();
        Map<String, String> env = new LinkedHashMap<>(spec.services().get());
        env.put(spec.portVariable(), Integer.toString(port));
        env.putAll(otlp.env());
        Path log = spec.tar().resolveSibling("image-run.log");
        Process process = root().start(root().defaultCommand(), env, limits, log);
        try (otlp) {
            HttpClient http = HttpClient.newBuilder()
                    .version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(2))
                    .build();
            await("/health/ready of " + image.tag())
                    .atMost(Duration.ofMinutes(2))
                    .pollInterval(Duration.ofMillis(250))
                    .until(() -> {
                        if (!process.isAlive()) {
                            fail(image.tag() + " exited " + process.exitValue() + " before it was ready:\n"
                                    + tail(log));
                        }
                        return status(http, port, "/health/ready") == 200;
                    });
            assertEquals(200, status(http, port, "/metrics"), "/metrics");
            String status = Files.readString(Path.of("/proc", Long.toString(process.pid()), "status"));
            Matcher uid = Pattern.compile("(?m)^Uid:\\s+(\\d+)\\s+(\\d+)").matcher(status);
            assertTrue(uid.find(), status);
            assertEquals("65532 65532", uid.group(1) + " " + uid.group(2), "real and effective user");
            assertEquals(
                    root().root().resolve("opt/java/bin/java"),
                    Files.readSymbolicLink(Path.of("/proc", Long.toString(process.pid()), "exe")),
                    "the image's java, not the host's");

            process.destroy();
            assertTrue(process.waitFor(1, TimeUnit.MINUTES), "still running a minute after SIGTERM");
            assertEquals(0, process.exitValue(), "exit code after SIGTERM; its output:\n" + tail(log));
            assertTrue(
                    Files.readString(log).contains("tracing on: spans of service " + spec.repository()),
                    "traced as " + spec.repository() + ":\n" + tail(log));
            // whatever it exported (the API traces the probes above) came from this process, intact
            otlp.spans().forEach(span -> assertEquals(spec.repository(), span.service(), span.toString()));
        } finally {
            stop(process);
            limits.ifPresent(CgroupLimits::close);
        }
    }

    @Test
    void heapAndCpuFollowTheContainerLimits() throws Exception {
        requireRunnable();
        CgroupLimits limits;
        try {
            limits = CgroupLimits.create(PROBE_MEMORY, 1);
        } catch (UnsupportedOperationException e) {
            abort(e.getMessage());
            return;
        }
        List<String> command = new ArrayList<>(List.of("java"));
        command.addAll(jvmFlags());
        command.addAll(List.of("-XshowSettings:system", "-XX:+PrintFlagsFinal", "-version"));
        Path log = spec.tar().resolveSibling("image-limits.log");
        Process process = root().start(command, Map.of(), Optional.of(limits), log);
        try {
            assertTrue(process.waitFor(1, TimeUnit.MINUTES), "java -version did not end");
            String out = Files.readString(log);
            assertEquals(0, process.exitValue(), out);
            Matcher max = Pattern.compile("size_t MaxHeapSize\\s+=\\s+(\\d+)").matcher(out);
            assertTrue(max.find(), out);
            double percent = Double.parseDouble(jvmFlags().stream()
                    .filter(f -> f.startsWith("-XX:MaxRAMPercentage="))
                    .findFirst()
                    .orElseThrow()
                    .substring("-XX:MaxRAMPercentage=".length()));
            long expected = (long) (PROBE_MEMORY * percent / 100);
            long heap = Long.parseLong(max.group(1));
            assertTrue(
                    Math.abs(heap - expected) <= 4L << 20,
                    "heap " + mib(heap) + " in a " + mib(PROBE_MEMORY) + " container, expected " + mib(expected));
            assertTrue(out.contains("Memory Limit: " + (PROBE_MEMORY >> 20) + ".00M"), out);
            assertTrue(out.contains("Effective CPU Count: 1"), out);
            System.out.printf(
                    "[image] %s in a %s, 1 CPU container: max heap %s%n", image.tag(), mib(PROBE_MEMORY), mib(heap));
        } finally {
            stop(process);
            limits.close();
        }
    }

    /** The flags between {@code java} and {@code -cp}. */
    private List<String> jvmFlags() {
        List<String> entrypoint = image.entrypoint();
        return entrypoint.subList(1, entrypoint.indexOf("-cp"));
    }

    private ImageRoot root() {
        if (root == null) {
            root = ImageRoot.unpack(image, spec.tar().resolveSibling("image-root"));
        }
        return root;
    }

    private static void requireRunnable() {
        Optional<String> whyNot = ImageRoot.whyNotRunnable();
        if (whyNot.isPresent()) {
            if ("1".equals(System.getenv("OUTBOX_REQUIRE_IMAGE_RUN"))) {
                fail("OUTBOX_REQUIRE_IMAGE_RUN=1 but " + whyNot.get());
            }
            abort(whyNot.get() + " (CI requires it)");
        }
    }

    /** A container's memory limit for the run where this machine can set one (the heap test says why not). */
    private static Optional<CgroupLimits> runLimits() {
        try {
            return Optional.of(CgroupLimits.create(RUN_MEMORY, 2));
        } catch (UnsupportedOperationException e) {
            System.out.println("[image] running without a memory limit: " + e.getMessage());
            return Optional.empty();
        }
    }

    private static void stop(Process process) throws InterruptedException {
        if (process.isAlive()) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static int status(HttpClient http, int port, String path) {
        try {
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .timeout(Duration.ofSeconds(5))
                    .build();
            return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
        } catch (IOException e) {
            return "(no output: " + e.getMessage() + ")";
        }
    }

    private static String mib(long bytes) {
        return String.format("%.1f MiB", bytes / 1048576.0);
    }
}
