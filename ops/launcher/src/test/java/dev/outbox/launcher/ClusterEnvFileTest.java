package dev.outbox.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import dev.outbox.testkit.EnvFile;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * {@code ops/cluster.sh}'s settings file loads the way the README says, in a real bash: the
 * README's own line ({@code set -a; . cluster.env; set +a; ops/run.sh}) hands every value to the
 * process it starts exactly as written, whatever characters the value holds, and the tools that
 * read the file without a shell ({@link EnvFile}) read the same values. And {@code ops/run.sh}
 * says first, before anything starts, when a missing variable makes it start embedded services.
 *
 * <p>{@code ops/run.sh} runs here with a {@code java} of the test's own (it prints its environment)
 * and a {@code mvn} that builds nothing, so the script runs for real and the system does not.
 */
class ClusterEnvFileTest {
    private static final Path ROOT = RepoFiles.root();
    /** The settings {@code write_env} writes for the cluster {@code ops/cluster.sh up} starts. */
    private static final Map<String, String> CLUSTER = Map.of(
            "OUTBOX_AMQP_URI", "amqp://guest:guest@127.0.0.1:5701,127.0.0.1:5702,127.0.0.1:5703/%2F",
            "OUTBOX_AMQP_QUEUE_TYPE", "quorum",
            "OUTBOX_DB_URL",
                    "jdbc:postgresql://127.0.0.1:5441,127.0.0.1:5442/outbox?targetServerType=primary&hostRecheckSeconds=2",
            "OUTBOX_DB_USER", "postgres");

    private static Path work;
    private static Path fakeBin;
    private static int generatedValues;

    @BeforeAll
    static void makeFakes() throws IOException {
        work = Files.createTempDirectory("cluster-env-test");
        fakeBin = Files.createDirectories(work.resolve("bin"));
        executable(fakeBin.resolve("java"), "#!/bin/sh\necho '[fake java] started' >&2\nexec env -0\n");
        executable(fakeBin.resolve("mvn"), "#!/bin/sh\necho '[fake mvn] nothing built' >&2\n");
    }

    @AfterAll
    static void removeFakes() throws IOException {
        System.out.println("[cluster-env] generated values through bash and EnvFile: " + generatedValues);
        try (Stream<Path> files = Files.walk(work)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    @Test
    void theReadmeLineHandsEveryClusterSettingToTheProcessesRunShStarts() throws Exception {
        Path dir = Files.createTempDirectory(work, "cluster");
        Path file = dir.resolve("cluster.env");
        Shell written = bash(Map.of("OUTBOX_CLUSTER_DIR", dir.toString()), ". ops/cluster.sh; write_env", new byte[0]);
        assertEquals(0, written.exit(), written.stderr());

        Shell run = bash(Map.of(), readmeLine(file, "ops/run.sh"), new byte[0]);
        assertEquals(0, run.exit(), run.stderr());
        Map<String, String> seen = outboxVariables(run.stdout());
        assertEquals(CLUSTER, seen, "what the process run.sh started was given\n" + Files.readString(file));
        assertFalse(run.stderr().contains("EMBEDDED"), run.stderr());
        assertEquals(CLUSTER, EnvFile.read(file), "the tools that read the file without a shell");
    }

    @Test
    void runShSaysFirstWhenAMissingVariableMakesItStartEmbeddedServices() throws Exception {
        Shell none = bash(Map.of(), "ops/run.sh", new byte[0]);
        assertEquals(0, none.exit(), none.stderr());
        List<String> lines = none.stderr().lines().toList();
        assertTrue(lines.get(0).contains("OUTBOX_DB_URL is not set: starting an EMBEDDED PostgreSQL"), none.stderr());
        assertTrue(
                lines.get(1).contains("OUTBOX_AMQP_URI is not set: starting an EMBEDDED AMQP broker"), none.stderr());
        assertTrue(lines.contains("[fake java] started"), "said before the start: " + none.stderr());

        Shell blankDb = bash(
                Map.of("OUTBOX_DB_URL", "  ", "OUTBOX_AMQP_URI", CLUSTER.get("OUTBOX_AMQP_URI")),
                "ops/run.sh",
                new byte[0]);
        assertTrue(blankDb.stderr().lines().findFirst().orElse("").contains("EMBEDDED PostgreSQL"), blankDb.stderr());
        assertFalse(blankDb.stderr().contains("EMBEDDED AMQP"), blankDb.stderr());

        Shell both = bash(CLUSTER, "ops/run.sh", new byte[0]);
        assertFalse(both.stderr().contains("EMBEDDED"), both.stderr());
    }

    /**
     * Generated values, the shell's own characters over-represented (quotes, backslashes, {@code &},
     * {@code $}, backquotes, blanks, newlines, {@code #}), with letters, non-ASCII and astral
     * characters: each written by {@code cluster.sh}'s {@code env_assignment}, loaded by the README's
     * line, and seen by the started process exactly as it was; {@link EnvFile} reads the same. Each
     * example starts bash twice, so shrinking a failure stops after 500 attempts (QuickTheories'
     * default is 100,000); the seed the failure prints replays it with {@code -DQT_SEED=<seed>}.
     */
    @Test
    void everyValueReachesTheStartedProcessAsItWas() {
        qt().withExamples(150).withShrinkCycles(500).forAll(values()).checkAssert(values -> {
            try {
                reachesTheStartedProcessAsItWas(values);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
    }

    private static void reachesTheStartedProcessAsItWas(List<String> values) throws Exception {
        Map<String, String> settings = new LinkedHashMap<>();
        for (int i = 0; i < values.size(); i++) {
            settings.put("OUTBOX_GENERATED_" + i, values.get(i));
        }
        ByteArrayOutputStream pairs = new ByteArrayOutputStream();
        settings.forEach((name, value) -> {
            pairs.writeBytes((name + "\0" + value + "\0").getBytes(StandardCharsets.UTF_8));
        });
        Path file = Files.createTempFile(work, "generated", ".env");
        Shell written = bash(
                Map.of("ENV_OUT", file.toString()),
                ". ops/cluster.sh; while IFS= read -r -d '' name && IFS= read -r -d '' value; do"
                        + " env_assignment \"$name\" \"$value\"; done > \"$ENV_OUT\"",
                pairs.toByteArray());
        assertEquals(0, written.exit(), written.stderr());

        Shell loaded = bash(Map.of(), readmeLine(file, "env -0"), new byte[0]);
        String text = Files.readString(file);
        assertEquals(0, loaded.exit(), loaded.stderr() + "\n" + text);
        assertEquals(settings, outboxVariables(loaded.stdout()), "bash loaded\n" + text);
        assertEquals(settings, EnvFile.parse(text, file.toString()), "EnvFile read\n" + text);
        generatedValues += values.size();
        Files.delete(file);
    }

    Gen<List<String>> values() {
        Gen<String> shellish = Generate.pick(List.of(
                "'",
                "''",
                "\\",
                "\\'",
                "'\\''",
                "\"",
                "&",
                "&&",
                ";",
                "|",
                "$",
                "$HOME",
                "${x}",
                "$(id)",
                "`id`",
                " ",
                "\t",
                "\n",
                "#",
                " #",
                "=",
                "*",
                "?",
                "[a]",
                "~",
                "!",
                "<",
                ">",
                "(",
                ")",
                "%2F",
                "\u00e9",
                "\u00df",
                "\u4e2d",
                "\ud83d\ude00",
                "\u00a0"));
        // ' ' to '~' and U+00A1 to U+024F, counted through in that order
        Gen<Character> plainChar = integers()
                .between(0, ('~' - ' ' + 1) + (0x024f - 0x00a1 + 1) - 1)
                .map(i -> {
                    int c = i <= '~' - ' ' ? ' ' + i : 0x00a1 + i - ('~' - ' ' + 1);
                    return (char) c;
                });
        Gen<String> plain = lists().of(plainChar)
                .ofSizeBetween(0, 12)
                .map(cs -> cs.stream().map(String::valueOf).collect(Collectors.joining()))
                // one in ten an edge: empty, or a single character at an end of a range, or a blank
                .mix(Generate.pick(List.of("", " ", "~", "\u00a1", "\u024f")), 10);
        // a shell string or a plain one, as often each; the shell's listed first, so a failure shrinks towards them
        Gen<String> value = lists().of(Generate.frequency(Pair.of(1, shellish), Pair.of(1, plain)))
                .ofSizeBetween(0, 10)
                .map(parts -> String.join("", parts));
        return lists().of(value)
                .ofSizeBetween(1, 6)
                // each value in double quotes, a backslash, double quote, newline and tab escaped as in Java
                .describedAs(vs -> vs.stream()
                        .map(v -> '"'
                                + v.replace("\\", "\\\\")
                                        .replace("\"", "\\\"")
                                        .replace("\n", "\\n")
                                        .replace("\t", "\\t")
                                + '"')
                        .collect(Collectors.joining(", ", "[", "]")));
    }

    @Test
    void theReaderRefusesWhatTheShellWouldNotReadAsTheValue() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> EnvFile.parse(
                        "OUTBOX_DB_URL=jdbc:postgresql://h:5441,h:5442/outbox?targetServerType=primary&hostRecheckSeconds=2\n",
                        "old cluster.env"));
        assertTrue(e.getMessage().contains("old cluster.env:1: unquoted &"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> EnvFile.parse("A='open\n", "f"));
        assertThrows(IllegalArgumentException.class, () -> EnvFile.parse("A=two words\n", "f"));
        assertEquals(
                Map.of("A", "plain", "B", "it's", "C", "x y"),
                EnvFile.parse("# comment\n\nA=plain\nexport B='it'\\''s'  # why\nC=x\\ y\n", "f"));
    }

    /** The README's line for loading the settings, on {@code file}, then {@code command}. */
    private static String readmeLine(Path file, String command) throws IOException {
        Matcher m = Pattern.compile("`(set -a; \\. )(\\S+cluster\\.env)(; set \\+a; )ops/run\\.sh`")
                .matcher(Files.readString(ROOT.resolve("ops/deploy/README.md")));
        assertTrue(m.find(), "ops/deploy/README.md shows how to load cluster.env");
        return m.group(1) + "'" + file + "'" + m.group(3) + command;
    }

    private static Map<String, String> outboxVariables(byte[] envNul) {
        Map<String, String> vars = new LinkedHashMap<>();
        for (String entry : new String(envNul, StandardCharsets.UTF_8).split("\0")) {
            if (entry.startsWith("OUTBOX_")) {
                vars.put(entry.substring(0, entry.indexOf('=')), entry.substring(entry.indexOf('=') + 1));
            }
        }
        return vars;
    }

    record Shell(int exit, byte[] stdout, String stderr) {}

    /** {@code script} in bash at the repository's root, with no OUTBOX_ variable but {@code env}'s. */
    private static Shell bash(Map<String, String> env, String script, byte[] stdin) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", "set -euo pipefail; " + script).directory(ROOT.toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("OUTBOX_") || k.equals("JAVA_OPTS"));
        pb.environment().put("PATH", fakeBin + ":" + System.getenv("PATH"));
        pb.environment().put("LC_ALL", "C");
        pb.environment().putAll(env);
        Process p = pb.start();
        CompletableFuture<byte[]> out = CompletableFuture.supplyAsync(() -> drain(p.getInputStream()));
        CompletableFuture<byte[]> err = CompletableFuture.supplyAsync(() -> drain(p.getErrorStream()));
        p.getOutputStream().write(stdin);
        p.getOutputStream().close();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("bash did not finish within 60 s: " + script);
        }
        return new Shell(p.exitValue(), out.get(), new String(err.get(), StandardCharsets.UTF_8));
    }

    private static byte[] drain(InputStream in) {
        try (in) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void executable(Path file, String text) throws IOException {
        Files.writeString(file, text);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
}
