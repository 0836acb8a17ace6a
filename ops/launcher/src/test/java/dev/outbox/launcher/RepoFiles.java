package dev.outbox.launcher;

import java.nio.file.Files;
import java.nio.file.Path;

/** The repository root, found from the module directory the tests run in. */
final class RepoFiles {
    private RepoFiles() {}

    static Path root() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null) {
            if (Files.exists(p.resolve("README.md"))
                    && Files.isDirectory(p.resolve("domain"))
                    && Files.isDirectory(p.resolve("relay-worker"))) {
                return p;
            }
            p = p.getParent();
        }
        throw new IllegalStateException(
                "not inside the repository: " + Path.of("").toAbsolutePath());
    }
}
