package dev.outbox.api;

import com.google.inject.AbstractModule;
import com.google.inject.multibindings.OptionalBinder;
import com.google.inject.name.Names;
import dev.outbox.api.ops.MissingEventsCheck;
import dev.outbox.api.orders.persistence.OrderMissingEvents;
import java.time.Clock;
import java.time.Duration;

/** The API's own bindings; persistence comes from {@code PersistenceModule}. */
public final class ApiModule extends AbstractModule {
    private final Clock clock;
    private final Duration idempotencyRetention;
    private final Duration relayLease;

    public ApiModule(Clock clock) {
        this(clock, Duration.ofHours(24), Duration.ofMinutes(2));
    }

    public ApiModule(Clock clock, Duration idempotencyRetention, Duration relayLease) {
        this.clock = clock;
        this.idempotencyRetention = idempotencyRetention;
        this.relayLease = relayLease;
    }

    @Override
    protected void configure() {
        // the persistence module's default is UTC now; the API's clock replaces it for the outbox too
        OptionalBinder.newOptionalBinder(binder(), Clock.class).setBinding().toInstance(clock);
        bind(Duration.class).annotatedWith(Names.named("idempotency.retention")).toInstance(idempotencyRetention);
        bind(Duration.class).annotatedWith(Names.named("relay.lease")).toInstance(relayLease);
        // the reconcile report's look at the order service's own rows; the outbox's reads none
        bind(MissingEventsCheck.class).to(OrderMissingEvents.class);
    }
}
