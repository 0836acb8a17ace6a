package dev.outbox.testkit.junit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TestResourcesTest {
    private final List<String> closed = new ArrayList<>();

    private AutoCloseable named(String name) {
        return () -> closed.add(name);
    }

    private AutoCloseable failing(String name) {
        return () -> {
            closed.add(name);
            throw new IllegalStateException(name + " failed to close");
        };
    }

    @Test
    void closesNewestFirstAndGivesEachResourceBack() throws Exception {
        TestResources r = new TestResources();
        AutoCloseable a = named("a");
        assertSame(a, r.add(a));
        r.add(named("b"));
        r.add(named("c"));
        r.closeAll();
        assertEquals(List.of("c", "b", "a"), closed);
        r.closeAll();
        assertEquals(List.of("c", "b", "a"), closed, "what was closed is not closed again");
    }

    @Test
    void everyResourceIsClosedWhateverTheOthersDo() {
        TestResources r = new TestResources();
        r.add(named("a"));
        r.add(failing("b"));
        r.add(named("c"));
        r.add(failing("d"));
        Exception e = assertThrows(IllegalStateException.class, r::closeAll);
        assertEquals(List.of("d", "c", "b", "a"), closed);
        assertEquals("d failed to close", e.getMessage(), "the first failure");
        assertEquals(1, e.getSuppressed().length);
        assertTrue(e.getSuppressed()[0].getMessage().startsWith("b "), "the rest suppressed");
    }

    @Test
    void aResourceTheTestClosedItselfIsForgotten() throws Exception {
        TestResources r = new TestResources();
        AutoCloseable a = r.add(named("a"));
        r.add(named("b"));
        assertTrue(r.remove(a));
        r.closeAll();
        assertEquals(List.of("b"), closed);
    }

    @Test
    void aPerClassRegistrationKeepsItsResourcesUntilAfterAll() throws Exception {
        TestResources shared = TestResources.perClass();
        shared.add(named("a"));
        shared.afterEach(null);
        assertEquals(List.of(), closed, "kept across the class's tests");
        shared.afterAll(null);
        assertEquals(List.of("a"), closed);

        TestResources each = new TestResources();
        each.add(named("b"));
        each.afterEach(null);
        assertEquals(List.of("a", "b"), closed, "a plain registration closes after each test");
    }
}
