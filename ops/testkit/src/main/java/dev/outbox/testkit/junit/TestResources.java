package dev.outbox.testkit.junit;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What a test started and must stop: relays, consumers, proxies, queues, network namespaces.
 * Register it ({@code @RegisterExtension final TestResources closing = new TestResources();}, or
 * {@code static final TestResources shared = TestResources.perClass();} for resources a whole
 * class shares), hand it each resource as it is made ({@code closing.add(RelayApp.start(...))}
 * returns the resource), and it closes them, newest first, after each test (after all its tests,
 * when per class). Every one is closed whatever the others do;
 * the first failure is thrown with the rest suppressed, so a test never leaves a process or a
 * namespace behind because an earlier close failed. Where teardown must go on after the
 * resources are closed (drop a slot, delete a queue), call {@link #closeAll} first in the
 * {@code @AfterEach}: what it closed is not closed again.
 */
public final class TestResources implements AfterEachCallback, AfterAllCallback {
    private final List<AutoCloseable> open = new ArrayList<>();
    private final boolean perClass;

    /** Closes what each test added after that test. */
    public TestResources() {
        this(false);
    }

    private TestResources(boolean perClass) {
        this.perClass = perClass;
    }

    /** For a static registration: closes what the class's tests added after all of them. */
    public static TestResources perClass() {
        return new TestResources(true);
    }

    /** Registers {@code resource} to be closed, and gives it back. */
    public synchronized <T extends AutoCloseable> T add(T resource) {
        open.add(resource);
        return resource;
    }

    /** Forgets {@code resource}: the test closed it itself (to restart it, to watch it go). */
    public synchronized boolean remove(AutoCloseable resource) {
        return open.remove(resource);
    }

    /** Closes everything registered, newest first; throws the first failure, the rest suppressed. */
    public void closeAll() throws Exception {
        List<AutoCloseable> closing;
        synchronized (this) {
            closing = new ArrayList<>(open);
            open.clear();
        }
        Exception first = null;
        for (int i = closing.size() - 1; i >= 0; i--) {
            try {
                closing.get(i).close();
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        if (!perClass) {
            closeAll();
        }
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        closeAll();
    }
}
