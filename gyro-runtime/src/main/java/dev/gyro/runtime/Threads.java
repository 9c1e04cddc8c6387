package dev.gyro.runtime;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/** The instance's threads, each named {@code gyro-INSTANCE-ROLE-N} so that a thread dump says what it is for. */
final class Threads {

    private Threads() {}

    static ThreadFactory named(int instance, String role) {
        String prefix = "gyro-" + instance + "-" + role + "-";
        AtomicLong n = new AtomicLong();
        return r -> {
            Thread t = new Thread(r, prefix + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    static ExecutorService single(int instance, String role) {
        return Executors.newSingleThreadExecutor(named(instance, role));
    }

    static ExecutorService fixed(int instance, String role, int threads) {
        return Executors.newFixedThreadPool(threads, named(instance, role));
    }

    /** {@code threads} threads and at most {@code queue} tasks waiting; beyond, execute() refuses the task. */
    static ExecutorService bounded(int instance, String role, int threads, int queue) {
        return new ThreadPoolExecutor(threads, threads, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(queue),
                named(instance, role), new ThreadPoolExecutor.AbortPolicy());
    }

    static ScheduledExecutorService timer(int instance) {
        return Executors.newSingleThreadScheduledExecutor(named(instance, "tick"));
    }
}
