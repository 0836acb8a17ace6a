package dev.outbox.launcher;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/** The repository root, found from the module directory the tests run in, and its files. */
final class RepoFiles {
    private static final Set<String> NOT_SOURCES = Set.of("target", ".git", "node_modules");
    private static List<String> files;

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

    /**
     * The repository's files as git sees them, relative to the root with {@code /}: tracked ones and
     * new ones not yet added, never what {@code .gitignore} leaves out (a benchmark's results folder,
     * build output), so a check over them sees the same files on a working copy as on a clean clone.
     * Without git (a source archive): every file outside {@code target/}, {@code .git/} and
     * {@code node_modules/}.
     */
    static synchronized List<String> files() throws IOException {
        if (files == null) {
            Path root = root();
            List<String> listed = gitLsFiles(root);
            if (listed == null) {
                try (Stream<Path> walk = Files.walk(root)) {
                    listed = walk.filter(Files::isRegularFile)
                            .map(f -> root.relativize(f).toString().replace('\\', '/'))
                            .filter(f -> Stream.of(f.split("/")).noneMatch(NOT_SOURCES::contains))
                            .sorted()
                            .toList();
                }
            }
            files = listed;
        }
        return files;
    }

    private static List<String> gitLsFiles(Path root) {
        try {
            Process git = new ProcessBuilder(
                            "git",
                            "-C",
                            root.toString(),
                            "ls-files",
                            "-z",
                            "--cached",
                            "--others",
                            "--exclude-standard")
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
            byte[] out;
            try (InputStream in = git.getInputStream()) {
                out = in.readAllBytes();
            }
            if (git.waitFor() != 0) {
                return null;
            }
            List<String> listed = new ArrayList<>();
            for (String f : new String(out, StandardCharsets.UTF_8).split("\0")) {
                // --cached also lists a tracked file deleted in the working copy
                if (!f.isEmpty() && Files.isRegularFile(root.resolve(f))) {
                    listed.add(f);
                }
            }
            return listed.stream().distinct().sorted().toList();
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}
