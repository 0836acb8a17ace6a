package dev.outbox.config;

import java.util.ArrayDeque;
import java.util.Deque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a process has started, stopped in reverse order. Components are added as they start; if
 * a later one fails to start, closing the lifecycle stops the earlier ones, newest first. A
 * component that fails to stop is logged with its name and the others are still stopped. Closing
 * twice stops nothing twice.
 */
public final class Lifecycle implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Lifecycle.class);

    private record Started(String name, AutoCloseable stop) {}

    private final String owner;
    private final Deque<Started> started = new ArrayDeque<>();

    public Lifecycle(String owner) {
        this.owner = owner;
    }

    /** Records a started component and returns it, so a start reads {@code x = life.add("x", X.start())}. */
    public synchronized <T extends AutoCloseable> T add(String name, T component) {
        started.push(new Started(name, component));
        return component;
    }

    /** Records how to stop something that is not itself closeable. */
    public synchronized void onStop(String name, AutoCloseable stop) {
        started.push(new Started(name, stop));
    }

    /** How many components are started and not yet stopped. */
    public synchronized int size() {
        return started.size();
    }

    @Override
    public void close() {
        Started s;
        while ((s = next()) != null) {
            try {
                s.stop().close();
            } catch (Exception e) {
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
                LOG.warn("{}: error while stopping {}; stopping the rest", owner, s.name(), e);
            } catch (Error e) {
                LOG.warn("{}: error while stopping {}; stopping the rest", owner, s.name(), e);
            }
        }
    }

    private synchronized Started next() {
        return started.poll();
    }
}
