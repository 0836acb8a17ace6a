package dev.outbox.deploy;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Renders an overlay as {@code kubectl apply -k} would, with the kustomize built into kubectl,
 * offline. kubectl is no Debian package and may be missing: then the tests that need a rendering
 * are skipped with the reason, except where {@code OUTBOX_REQUIRE_KUSTOMIZE=1} (CI sets it), where
 * they fail, so they never pass by not running.
 */
final class Kustomize {
    private static final String KUBECTL = "kubectl";
    private static final boolean AVAILABLE = probe();

    private Kustomize() {}

    /** Fails under {@code OUTBOX_REQUIRE_KUSTOMIZE=1}, skips elsewhere, when kubectl cannot render. */
    static void requireOrSkip() {
        String missing = KUBECTL + " (with its kustomize) does not run here: the rendered overlays are not checked";
        if (!AVAILABLE && "1".equals(System.getenv("OUTBOX_REQUIRE_KUSTOMIZE"))) {
            throw new IllegalStateException("OUTBOX_REQUIRE_KUSTOMIZE=1 but " + missing);
        }
        assumeTrue(AVAILABLE, missing + " (CI requires it)");
    }

    /** {@code kubectl kustomize dir}'s output: every object the overlay applies. */
    static List<ManifestFiles.Document> render(Path dir) {
        requireOrSkip();
        String yaml = run(KUBECTL, "kustomize", dir.toString());
        return ManifestFiles.documents("kubectl kustomize " + ManifestFiles.K8S.relativize(dir), yaml);
    }

    private static boolean probe() {
        try {
            run(KUBECTL, "version", "--client");
            return true;
        } catch (IllegalStateException e) {
            return false;
        }
    }

    private static String run(String... command) {
        try {
            Path out = Files.createTempFile("kustomize", ".yaml");
            Path err = Files.createTempFile("kustomize", ".err");
            try {
                Process p = new ProcessBuilder(command)
                        .redirectOutput(out.toFile())
                        .redirectError(err.toFile())
                        .start();
                if (!p.waitFor(60, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    throw new IllegalStateException(String.join(" ", command) + " took over 60 s");
                }
                if (p.exitValue() != 0) {
                    throw new IllegalStateException(String.join(" ", command) + " exited " + p.exitValue() + ": "
                            + Files.readString(err, StandardCharsets.UTF_8));
                }
                return Files.readString(out, StandardCharsets.UTF_8);
            } finally {
                Files.deleteIfExists(out);
                Files.deleteIfExists(err);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + String.join(" ", command) + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running " + String.join(" ", command), e);
        }
    }
}
