package dev.outbox.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The outbox's statements read and write the outbox's tables only: the samples' tables (the
 * order service's, the ledger's) are theirs, and a service that adopts the outbox has none of
 * them. A check that needs a service's rows is the service's own (the order service's part of the
 * reconcile report is {@code OrderMissingEvents} in the API).
 */
class NoSampleTableTest {
    private static final Pattern SAMPLE_TABLE = Pattern.compile(
            "(?i)\\b(from|join|into|update|table)\\s+(orders|order_lines|ledger_entries|ledger_journal)\\b");

    @Test
    void noStatementOfTheOutboxNamesASampleTable() throws IOException {
        List<String> found = new ArrayList<>();
        int read = 0;
        try (Stream<Path> files = Files.walk(Path.of("src/main"))) {
            for (Path f : files.filter(
                            p -> p.toString().endsWith(".xml") || p.toString().endsWith(".java"))
                    .toList()) {
                read++;
                List<String> lines = Files.readAllLines(f);
                for (int i = 0; i < lines.size(); i++) {
                    Matcher m = SAMPLE_TABLE.matcher(lines.get(i));
                    if (m.find()) {
                        found.add(f + ":" + (i + 1) + ": " + lines.get(i).strip());
                    }
                }
            }
        }
        assertTrue(read > 10, "read the module's sources: " + read);
        assertEquals(List.of(), found, "statements of the outbox that name a sample's table");
    }
}
