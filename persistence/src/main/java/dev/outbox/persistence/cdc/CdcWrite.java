package dev.outbox.persistence.cdc;

import java.util.UUID;

/**
 * One row of an outcome write in CDC mode: the row was visible to the statement, and {@code written}
 * says whether its outcome was recorded (it was still {@code PENDING}) or its state stands.
 * A row the statement did not see at all has no {@code CdcWrite}.
 */
public record CdcWrite(UUID id, boolean written) {}
