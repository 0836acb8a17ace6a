package dev.outbox.persistence.cdc;

import java.time.Instant;

/** Where the stream of a slot stands (table {@code outbox_cdc_position}, V13). */
public record CdcPosition(
        String slotName, String relayId, long streamXmin, String confirmedLsn, Instant streamTime, Instant updatedAt) {}
