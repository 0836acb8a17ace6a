package dev.outbox.migrations;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.outbox.testkit.ReleasedScripts;
import java.io.IOException;
import java.io.InputStream;
import org.junit.jupiter.api.Test;

/**
 * The scripts the earlier releases shipped are released: databases ran them, and Flyway refuses a
 * script whose checksum changed since. {@link ReleasedScripts} is a frozen copy of them, the
 * one {@link OutboxSchemaUpgradeIT} applies the earlier way; the product's copies in {@value
 * DatabaseMigrations#LOCATION} must stay byte for byte the same, and the list the adoption trusts
 * ({@link DatabaseMigrations#EARLIER_SCRIPTS}) must name exactly them.
 */
class ReleasedScriptsTest {
    @Test
    void theAdoptionNamesExactlyTheReleasedScripts() {
        assertEquals(ReleasedScripts.names(), DatabaseMigrations.EARLIER_SCRIPTS);
    }

    @Test
    void theProductsScriptsAreTheReleasedOnesByteForByte() throws IOException {
        for (String script : ReleasedScripts.names()) {
            assertArrayEquals(
                    ReleasedScripts.bytes(script),
                    bytes("db/outbox/" + script),
                    script + " was released: add a new script instead of changing it");
        }
    }

    private static byte[] bytes(String resource) throws IOException {
        try (InputStream in = DatabaseMigrations.class.getClassLoader().getResourceAsStream(resource)) {
            assertNotNull(in, resource);
            return in.readAllBytes();
        }
    }
}
