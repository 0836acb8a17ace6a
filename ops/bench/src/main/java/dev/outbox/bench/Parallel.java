package dev.outbox.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Runs {@code n} workers on threads of their own, waits for all, and fails with the first error. */
final class Parallel {
    /** One worker's body; {@code index} is 0 to n-1. */
    @FunctionalInterface
    interface Worker {
        void run(int index) throws Exception;
    }

    private Parallel() {}

    /** @return seconds from starting the first thread to the last one finishing */
    static double run(String name, int n, Worker worker) throws InterruptedException {
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int index = i;
            threads.add(new Thread(
                    () -> {
                        try {
                            worker.run(index);
                        } catch (Throwable t) {
                            errors.add(t);
                        }
                    },
                    name + "-" + i));
        }
        long start = System.nanoTime();
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        if (!errors.isEmpty()) {
            throw new IllegalStateException(name + " failed", errors.get(0));
        }
        return seconds;
    }
}
