package dev.outbox.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No class of the product is over 400 lines: a class that long does several things, and its
 * parts should say which. The tools beside the product (bench, chaos, testkit) are not held to it.
 */
class ProductClassSizeTest {
    private static final int MOST_LINES = 400;
    private static final List<String> PRODUCT = List.of(
            "api",
            "domain",
            "persistence",
            "messaging",
            "relay-worker",
            "ops/consumers",
            "ops/launcher",
            "ops/outboxctl",
            "ops/embedded",
            "ops/example-invoicing");

    @Test
    void noProductClassIsOver400Lines() throws IOException {
        Path root = RepoFiles.root();
        Map<String, Long> tooLong = new TreeMap<>();
        int seen = 0;
        for (String module : PRODUCT) {
            try (Stream<Path> files = Files.walk(root.resolve(module))) {
                for (Path f : files.filter(p -> p.toString().endsWith(".java")
                                && p.toString().contains("/src/main/java/")
                                && !p.toString().contains("/target/"))
                        .toList()) {
                    seen++;
                    long lines;
                    try (Stream<String> l = Files.lines(f)) {
                        lines = l.count();
                    }
                    if (lines > MOST_LINES) {
                        tooLong.put(root.relativize(f).toString(), lines);
                    }
                }
            }
        }
        assertTrue(seen > 200, "only " + seen + " classes found: is the walk blind?");
        assertEquals(Map.of(), tooLong, "product classes over " + MOST_LINES + " lines");
    }
}
