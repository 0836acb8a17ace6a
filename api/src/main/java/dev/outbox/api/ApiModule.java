package dev.outbox.api;

import com.google.inject.AbstractModule;
import java.time.Clock;

/** The API's own bindings; persistence comes from {@code PersistenceModule}. */
public final class ApiModule extends AbstractModule {
    private final Clock clock;

    public ApiModule(Clock clock) {
        this.clock = clock;
    }

    @Override
    protected void configure() {
        bind(Clock.class).toInstance(clock);
    }
}
