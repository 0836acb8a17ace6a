package dev.outbox.ctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class ProgressBarTest {
    @Test
    void fillsInProportionToWhatIsDone() {
        assertEquals("[----------] 0/300", ProgressBar.render(0, 300, 10));
        assertEquals("[####------] 120/300", ProgressBar.render(120, 300, 10));
        assertEquals("[#########-] 299/300", ProgressBar.render(299, 300, 10), "full only when complete");
        assertEquals("[##########] 300/300", ProgressBar.render(300, 300, 10));
        assertEquals("[#-] 1/2", ProgressBar.render(1, 2, 2));
    }

    @Test
    void clampsWhatCannotBeAndTreatsNothingToDoAsDone() {
        assertEquals("[#####] 7/7", ProgressBar.render(9, 7, 5));
        assertEquals("[-----] 0/7", ProgressBar.render(-3, 7, 5));
        assertEquals("[#####] 0/0", ProgressBar.render(0, 0, 5));
        assertThrows(IllegalArgumentException.class, () -> ProgressBar.render(1, 2, 0));
    }

    @Test
    void largeCountsDoNotOverflow() {
        assertEquals(
                "[#####-----] 4000000000000/8000000000000",
                ProgressBar.render(4_000_000_000_000L, 8_000_000_000_000L, 10));
    }
}
