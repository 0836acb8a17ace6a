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
    /**
     * A sample's table where a statement names a table: after a keyword, or after a comma in a
     * list of tables; across line breaks, schema-qualified or quoted. A name followed by a dot
     * ({@code "orders.events"}, an exchange) is not a table.
     */
    private static final Pattern SAMPLE_TABLE = Pattern.compile(
            "(?is)(\\b(from|join|into|update|table|truncate)\\s+"
                    + "(only\\s+)?|,\\s*)(\"?public\"?\\s*\\.\\s*)?\"?(orders|order_lines|ledger_entries|ledger_journal)\"?(?![.\\w])");

    @Test
    void noStatementOfTheOutboxNamesASampleTable() throws IOException {
        List<String> found = new ArrayList<>();
        int read = 0;
        try (Stream<Path> files = Files.walk(Path.of("src/main"))) {
            for (Path f : files.filter(
                            p -> p.toString().endsWith(".xml") || p.toString().endsWith(".java"))
                    .toList()) {
                read++;
                String text = Files.readString(f);
                Matcher m = SAMPLE_TABLE.matcher(text);
                while (m.find()) {
                    long line = text.substring(0, m.start())
                                    .chars()
                                    .filter(c -> c == '\n')
                                    .count()
                            + 1;
                    found.add(f + ":" + line + ": " + m.group().replaceAll("\\s+", " "));
                }
            }
        }
        assertTrue(read > 10, "read the module's sources: " + read);
        assertEquals(List.of(), found, "statements of the outbox that name a sample's table");
    }
}
