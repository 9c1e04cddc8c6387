package dev.gyro.bench;

import dev.gyro.emulation.Capacity;

import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * How much of the emulated servers' capacity a point used: their slot time in use over the measured window, as a
 * share of all their slots over that window (docs/benchmark-method.md). A system near 100% runs at what
 * the servers can serve at all, so no protocol could make it much faster there; the figure says how much room a
 * comparison leaves. Beside it, how busy this machine's own cores were over the same window ({@link MachineCpu}): near
 * 100% there, the machine and not the emulated servers limited the point. Read at the window's two ends by a daemon
 * thread, since the workload runner blocks its caller.
 */
final class ServersBusy {

    private final List<Capacity> servers;
    private final long slots;
    private final Thread sampler;
    private volatile long from = -1, to = -1, fromNanos, toNanos;
    private volatile MachineCpu cpuFrom, cpuTo;

    private ServersBusy(List<Capacity> servers, long startNanos, long windowNanos) {
        this.servers = List.copyOf(servers);
        this.slots = servers.stream().mapToLong(Capacity::concurrency).sum();
        this.sampler = new Thread(() -> {
            if (!sleepUntil(startNanos)) return;
            cpuFrom = MachineCpu.read();
            fromNanos = System.nanoTime();
            from = busyNanos();
            if (!sleepUntil(startNanos + windowNanos)) return;
            toNanos = System.nanoTime();
            to = busyNanos();
            cpuTo = MachineCpu.read();
        }, "servers-busy");
        sampler.setDaemon(true);
    }

    /**
     * Starts reading {@code servers} and the machine at {@code startNanos} ({@link System#nanoTime()}) and
     * {@code windowNanos} later.
     */
    static ServersBusy over(List<Capacity> servers, long startNanos, long windowNanos) {
        ServersBusy b = new ServersBusy(servers.stream().filter(Capacity::emulated).toList(), startNanos, windowNanos);
        b.sampler.start();
        return b;
    }

    /** The share (0 to 1) once the window is over; null without emulated servers or when the window was cut short. */
    Double share() {
        if (servers.isEmpty() || !readBoth()) return null;
        return (double) (to - from) / (slots * (double) (toNanos - fromNanos));
    }

    /**
     * The share (0 to 1) of this machine's CPU time that was busy over the window, once it is over; null where the
     * machine's counters cannot be read or the window was cut short.
     */
    Double machineShare() {
        if (!readBoth()) return null;
        MachineCpu a = cpuFrom, b = cpuTo;
        return a == null || b == null ? null : b.busySince(a);
    }

    /** Waits for the reading at the window's end; false when it will not come (the window was cut short). */
    private boolean readBoth() {
        try {
            sampler.join(1_000); // the runner returns at the window's end; the last reading is due then
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (from < 0 || to < 0 || toNanos <= fromNanos) {
            sampler.interrupt();
            return false;
        }
        return true;
    }

    /** The emulated servers' slots, all together; null without emulated servers. */
    Long slots() {
        return servers.isEmpty() ? null : slots;
    }

    private long busyNanos() {
        return servers.stream().mapToLong(Capacity::busyNanos).sum();
    }

    private static boolean sleepUntil(long nanos) {
        for (long left; (left = nanos - System.nanoTime()) > 0; ) {
            LockSupport.parkNanos(left);
            if (Thread.currentThread().isInterrupted()) return false;
        }
        return true;
    }
}
