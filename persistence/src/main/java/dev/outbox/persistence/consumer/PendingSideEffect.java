package dev.outbox.persistence.consumer;

import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Instant;

/** An external call that was started and never recorded as done: a message to repair by hand. */
@Schema(additionalProperties = Schema.AdditionalPropertiesValue.FALSE)
public record PendingSideEffect(
        @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String consumerName,
        @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String messageId,
        @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String effect,
        @Schema(requiredMode = Schema.RequiredMode.REQUIRED) Instant startedAt) {}
