package dev.outbox.launcher;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Prometheus's own checker ({@code promtool}, from Debian's {@code prometheus} package): it parses
 * rule files with the real PromQL parser. Where it is not installed the tests that use it are
 * skipped, with the reason; CI installs it and sets {@code OUTBOX_REQUIRE_PROMTOOL=1}, and there a
 * missing promtool fails them instead.
 */
final class Promtool {
    private Promtool() {}

    /** What one run of promtool printed and how it ended. */
    record Result(int exitCode, String output) {}

    /** The promtool to run: {@code OUTBOX_PROMTOOL}, else the first on the PATH; skips or fails when there is none. */
    static Path requireOrSkip() {
        Path found = find();
        String missing = "no promtool: apt-get install prometheus (.ci/run does), or set OUTBOX_PROMTOOL";
        if (found == null && "1".equals(System.getenv("OUTBOX_REQUIRE_PROMTOOL"))) {
            throw new IllegalStateException("OUTBOX_REQUIRE_PROMTOOL=1 but " + missing);
        }
        assumeTrue(found != null, missing);
        return found;
    }

    private static Path find() {
        String configured = System.getenv("OUTBOX_PROMTOOL");
        if (configured != null && !configured.isBlank()) {
            return new File(configured).canExecute() ? Path.of(configured) : null;
        }
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            File candidate = new File(dir, "promtool");
            if (candidate.canExecute()) {
                return candidate.toPath();
            }
        }
        return null;
    }

    /** {@code promtool check rules <file>}. */
    static Result checkRules(Path promtool, Path rules) throws IOException, InterruptedException {
        Path output = Files.createTempFile("promtool-", ".txt");
        try {
            Process p = new ProcessBuilder(promtool.toString(), "check", "rules", rules.toString())
                    .redirectErrorStream(true)
                    .redirectOutput(output.toFile())
                    .start();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException("promtool did not finish within 60 s");
            }
            return new Result(p.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(output);
        }
    }
}
