package dev.outbox.adoption;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.testkit.TestDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Services outside this build take the outbox as the adopting guide says: a build of their own
 * (src/it/adopters, no parent of ours) imports {@code outbox-bom} and adds one artifact per
 * transaction stack (plain JDBC, Spring, jOOQ, MyBatis-Guice). Its own Maven compiles it against
 * this build's artifacts, installed into a repository of its own, and runs its tests on this
 * database: the outbox set up through the front door, the message committing and rolling back
 * with the service's row, refused outside a transaction, Jackson and Guava at the tested versions,
 * and MyBatis only where the stack is MyBatis.
 */
class AdoptersBuildIT {
    private static final List<String> STACKS = List.of("plain-jdbc", "spring", "jooq", "mybatis-guice");
    private static final Pattern SUITE = Pattern.compile(
            "<testsuite[^>]*?\\btests=\"(\\d+)\"[^>]*?\\berrors=\"(\\d+)\"[^>]*?\\bskipped=\"(\\d+)\"[^>]*?\\bfailures=\"(\\d+)\"");

    private final TestDatabase db = TestDatabase.get();

    @Test
    void eachStacksServiceBuildsOnTheBomAndItsOneArtifactAndPassesItsTests() throws Exception {
        Path build = Path.of(System.getProperty("outbox.adopters.build"));
        Path repository = Path.of(System.getProperty("outbox.adopters.repository"));
        Path mvn = Path.of(System.getProperty("maven.home"), "bin", "mvn");
        Path log = build.resolve("adopters.log");
        assertEquals(
                List.of(), staleArtifacts(repository), "the adopters' build would not run on this build's artifacts");
        Path settings = build.resolve("settings-resolved.xml");
        String buildRepository =
                Path.of(System.getProperty("outbox.build.repository")).toUri().toString();
        Files.writeString(
                settings,
                Files.readString(build.resolve("settings.xml")).replace("${outbox.build.repository}", buildRepository));

        ProcessBuilder pb = new ProcessBuilder(
                        mvn.toString(),
                        "-B",
                        "-s",
                        settings.toString(),
                        "-Dmaven.repo.local=" + repository,
                        "-f",
                        build.resolve("adopters/pom.xml").toString(),
                        "clean",
                        "test")
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        Map<String, String> env = pb.environment();
        env.put("OUTBOX_TEST_DB_URL", db.url());
        env.put("OUTBOX_TEST_DB_USER", db.user());
        if (db.password() != null) {
            env.put("OUTBOX_TEST_DB_PASSWORD", db.password());
        }
        env.remove("MAVEN_OPTS");
        Process p = pb.start();
        boolean exited = p.waitFor(10, TimeUnit.MINUTES);
        if (!exited) {
            p.descendants().forEach(ProcessHandle::destroyForcibly); // its forked test JVMs too
            p.destroyForcibly();
        }
        String output = Files.readString(log);
        assertTrue(exited, "the adopters' build did not end in 10 minutes:\n" + tail(output));
        assertEquals(0, p.exitValue(), "the adopters' build failed:\n" + tail(output));

        List<String> ran = new ArrayList<>();
        for (String stack : STACKS) {
            int[] counts = suites(build.resolve("adopters").resolve(stack).resolve("target/surefire-reports"));
            ran.add(stack + ": " + counts[0] + " run, " + counts[1] + " failed, " + counts[2] + " skipped");
            assertTrue(counts[0] >= 4, stack + " ran its cases: " + ran);
            assertEquals(0, counts[1], stack + ": " + ran);
            assertEquals(0, counts[2], stack + ": " + ran);
        }
        System.out.println("[adopters] " + ran);
    }

    /**
     * The jars of ours installed for the adopters that are not this build's: each must equal the
     * one its module packaged in this build. The invoker takes them from the reactor when the
     * product's modules are built with this one, and from {@code ~/.m2} when they are not (this
     * module built alone, without {@code -am}), which may hold an earlier install.
     */
    private static List<String> staleArtifacts(Path repository) throws IOException {
        Path root = Path.of("../..").toAbsolutePath().normalize();
        Map<String, Path> packaged = new java.util.HashMap<>();
        try (Stream<Path> files = Files.walk(root, 5)) {
            files.filter(f -> f.getParent() != null
                            && f.getParent().getFileName().toString().equals("target"))
                    .filter(f -> f.getFileName().toString().matches("outbox-[a-z0-9-]+-[0-9][^/]*\\.jar"))
                    .forEach(f -> packaged.put(f.getFileName().toString(), f));
        }
        List<String> stale = new ArrayList<>();
        int compared = 0;
        assertTrue(
                Files.isDirectory(repository.resolve("dev/outbox")),
                "nothing of ours installed in " + repository
                        + ": the invoker installs in pre-integration-test (mvn verify)");
        try (Stream<Path> files = Files.walk(repository.resolve("dev/outbox"))) {
            for (Path installed :
                    files.filter(f -> f.toString().endsWith(".jar")).toList()) {
                Path ours = packaged.get(installed.getFileName().toString());
                if (ours == null || Files.mismatch(ours, installed) != -1) {
                    stale.add(installed.getFileName()
                            + (ours == null
                                    ? ": no module of this build packaged it"
                                    : ": differs from " + root.relativize(ours))
                            + " (build the product's modules with this one: mvn verify, or -pl ops/adoption -am)");
                }
                compared++;
            }
        }
        assertTrue(compared >= 6, "the invoker installed the product's jars: " + compared);
        return stale;
    }

    /** tests, failures + errors, skipped over a module's surefire reports. */
    private static int[] suites(Path reports) throws IOException {
        int[] counts = new int[3];
        if (!Files.isDirectory(reports)) {
            return counts;
        }
        try (Stream<Path> files = Files.list(reports)) {
            for (Path f : files.filter(f -> f.getFileName().toString().matches("TEST-.*\\.xml"))
                    .toList()) {
                Matcher m = SUITE.matcher(Files.readString(f));
                if (m.find()) {
                    counts[0] += Integer.parseInt(m.group(1));
                    counts[1] += Integer.parseInt(m.group(2)) + Integer.parseInt(m.group(4));
                    counts[2] += Integer.parseInt(m.group(3));
                }
            }
        }
        return counts;
    }

    private static String tail(String output) {
        List<String> lines = output.lines().toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 120), lines.size()));
    }
}
