package dev.outbox.example.invoicing;

import dev.outbox.testkit.arch.FrontDoorOnly;
import org.junit.jupiter.api.Test;

/**
 * The example adopts the outbox through the front door only ({@code dev.outbox}, module
 * {@code outbox-front-door}), never its implementation: the build gives it nothing else of ours to
 * compile against, and this rule keeps it so should a dependency change.
 */
class InvoicingArchitectureTest {
    @Test
    void theServiceUsesOnlyTheFrontDoorOfTheOutbox() {
        FrontDoorOnly.check("dev.outbox.example.invoicing");
    }
}
