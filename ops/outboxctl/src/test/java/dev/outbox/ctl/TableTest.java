package dev.outbox.ctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class TableTest {
    @Test
    void columnsAreAsWideAsTheirWidestCellAndNumbersAlignRight() {
        String t = Table.of("ID", "STATUS", "ATTEMPTS")
                .rightAlign(2)
                .row("a", "PARKED", 5)
                .row("bbbb", "PENDING", 12)
                .render();
        assertEquals("" + "ID    STATUS   ATTEMPTS\n" + "a     PARKED          5\n" + "bbbb  PENDING        12\n", t);
    }

    @Test
    void longCellsAreCutToTheColumnsMaximumAndMarked() {
        String t = Table.of("TYPE", "X")
                .maxWidth(0, 8)
                .row("order.created.v2", "1")
                .row("short", "2")
                .render();
        assertEquals("" + "TYPE      X\n" + "order...  1\n" + "short     2\n", t);
    }

    @Test
    void aHeaderWiderThanTheMaximumWidensTheColumnForItsCellsToo() {
        assertEquals(
                "AGGREGATE\nabcdef...\n",
                Table.of("AGGREGATE").maxWidth(0, 6).row("abcdefghij").render());
    }

    @Test
    void nullsPrintAsDashMissingCellsAsEmptyAndNoLineEndsInSpaces() {
        String t = Table.of("A", "B", "C").row(null, "x").row("long value").render();
        assertEquals("" + "A           B  C\n" + "-           x\n" + "long value\n", t);
    }

    @Test
    void controlCharactersCannotBreakTheGrid() {
        String t = Table.of("ERROR", "N").row("line one\nline two\tend", 1).render();
        assertEquals("" + "ERROR                  N\n" + "line one line two end  1\n", t);
    }

    @Test
    void rowsWiderThanTheTableAndSillyWidthsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> Table.of("A").row("1", "2"));
        assertThrows(IllegalArgumentException.class, () -> Table.of("A").maxWidth(0, 3));
        assertThrows(IllegalArgumentException.class, Table::of);
    }
}
