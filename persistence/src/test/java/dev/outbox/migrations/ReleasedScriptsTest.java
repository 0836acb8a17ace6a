package dev.outbox.migrations;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The scripts the earlier releases shipped are released: databases ran them, and Flyway refuses a
 * script whose checksum changed since. {@code released/db/migration} is a frozen copy of them, the
 * one {@link OutboxSchemaUpgradeIT} applies the earlier way; the product's copies in {@value
 * DatabaseMigrations#LOCATION} must stay byte for byte the same, and the list the adoption trusts
 * ({@link DatabaseMigrations#EARLIER_SCRIPTS}) must name exactly them.
 */
class ReleasedScriptsTest {
    @Test
    void theAdoptionNamesExactlyTheReleasedScripts() throws Exception {
        assertEquals(releasedScripts(), DatabaseMigrations.EARLIER_SCRIPTS);
    }

    @Test
    void theProductsScriptsAreTheReleasedOnesByteForByte() throws Exception {
        for (String script : releasedScripts()) {
            assertArrayEquals(
                    bytes("released/db/migration/" + script),
                    bytes("db/outbox/" + script),
                    script + " was released: add a new script instead of changing it");
        }
    }

    private static List<String> releasedScripts() throws IOException, URISyntaxException {
        Path dir = Path.of(ReleasedScriptsTest.class
                .getClassLoader()
                .getResource("released/db/migration")
                .toURI());
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString())
                    .sorted(Comparator.comparingInt(ReleasedScriptsTest::version))
                    .toList();
        }
    }

    private static int version(String script) {
        return Integer.parseInt(script.substring(1, script.indexOf("__")));
    }

    private static byte[] bytes(String resource) throws IOException {
        try (InputStream in = DatabaseMigrations.class.getClassLoader().getResourceAsStream(resource)) {
            assertNotNull(in, resource);
            return in.readAllBytes();
        }
    }
}
