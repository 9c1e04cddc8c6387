package dev.gyro.runtime.check;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/** Collects the accesses of every request of one or more instances. Thread-safe. */
public final class AccessLog {
    private final ConcurrentLinkedQueue<Access> accesses = new ConcurrentLinkedQueue<>();

    public void add(Access access) {
        accesses.add(access);
    }

    public List<Access> all() {
        return List.copyOf(accesses);
    }

    public int size() {
        return accesses.size();
    }
}
