package dev.outbox;

import java.security.SecureRandom;
import java.util.UUID;

/**
 * RFC 9562 version 7 UUIDs: 48 bits of Unix milliseconds, then 74 random bits. New rows land at
 * the right-hand edge of a B-tree index instead of a random page, which keeps primary-key
 * inserts into {@code orders} and {@code message_outbox} cheap as the tables grow, and the
 * random part keeps ids unguessable.
 */
public final class TimeOrderedIds {
    private static final SecureRandom RANDOM = new SecureRandom();

    private TimeOrderedIds() {}

    public static UUID next(long epochMillis) {
        byte[] random = new byte[10];
        RANDOM.nextBytes(random);
        long msb = (epochMillis & 0xFFFF_FFFF_FFFFL) << 16;
        msb |= 0x7000L; // version 7
        msb |= ((random[0] & 0x0FL) << 8) | (random[1] & 0xFFL);
        long lsb = 0;
        for (int i = 2; i < 10; i++) {
            lsb = (lsb << 8) | (random[i] & 0xFFL);
        }
        lsb = (lsb & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L; // IETF variant
        return new UUID(msb, lsb);
    }

    /** The millisecond timestamp a version 7 id was made at. */
    public static long epochMillis(UUID id) {
        if (id.version() != 7) {
            throw new IllegalArgumentException("not a version 7 UUID: " + id);
        }
        return id.getMostSignificantBits() >>> 16;
    }
}
