package dev.outbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class TimeOrderedIdsTest {
    @Test
    void idsAreVersionSevenWithTheIetfVariantAndCarryTheirTimestamp() {
        long now = 1_795_000_000_000L;
        UUID id = TimeOrderedIds.next(now);
        assertEquals(7, id.version());
        assertEquals(2, id.variant());
        assertEquals(now, TimeOrderedIds.epochMillis(id));
    }

    @Test
    void laterMillisecondsSortAfterEarlierOnes() {
        UUID a = TimeOrderedIds.next(1_000);
        UUID b = TimeOrderedIds.next(1_001);
        // PostgreSQL compares uuid bytes unsigned, left to right; so does this
        assertTrue(Long.compareUnsigned(a.getMostSignificantBits(), b.getMostSignificantBits()) < 0);
    }

    @Test
    void idsWithinOneMillisecondAreStillUnique() {
        Set<UUID> seen = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            assertTrue(seen.add(TimeOrderedIds.next(42)));
        }
    }

    @Test
    void refusesToReadATimestampFromARandomUuid() {
        assertThrows(IllegalArgumentException.class, () -> TimeOrderedIds.epochMillis(UUID.randomUUID()));
    }
}
