package dev.outbox.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LifecycleTest {
    private final List<String> stopped = new ArrayList<>();

    private AutoCloseable component(String name) {
        return () -> stopped.add(name);
    }

    @Test
    void componentsStopInReverseOrderOnce() {
        Lifecycle life = new Lifecycle("test");
        AutoCloseable db = component("database");
        assertSame(db, life.add("database", db));
        life.add("broker", component("broker"));
        life.onStop("relay", () -> stopped.add("relay"));
        assertEquals(3, life.size());
        life.close();
        life.close();
        assertEquals(List.of("relay", "broker", "database"), stopped);
        assertEquals(0, life.size());
    }

    @Test
    void aComponentThatFailsToStopDoesNotKeepTheOthersRunning() {
        Lifecycle life = new Lifecycle("test");
        life.add("database", component("database"));
        life.onStop("broker", () -> {
            throw new IllegalStateException("socket already gone");
        });
        life.onStop("listener", () -> {
            throw new AssertionError("an Error too");
        });
        life.add("relay", component("relay"));
        life.close();
        assertEquals(List.of("relay", "database"), stopped);
    }
}
