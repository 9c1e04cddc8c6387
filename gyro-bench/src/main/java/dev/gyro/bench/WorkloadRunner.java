package dev.gyro.bench;

import dev.gyro.app.Call;
import dev.gyro.app.ClientSession;
import dev.gyro.app.Outcome;
import dev.gyro.app.Workload;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * Drives a {@link Workload} with N closed-loop client sessions against a {@link Target} for a while: each session
 * thread asks its {@link ClientSession} for the next call, waits out the think time, sends the call, and feeds the
 * outcome back. Records, per transaction, how many calls were OK, ABORTED and FAILED, and the client-side latency of
 * each call by how the target ran it (local or global).
 */
public final class WorkloadRunner {

    /**
     * @param sessions concurrent client sessions (threads)
     * @param duration how long to drive load and measure, after the warm-up
     * @param seed     seeds every session's random source (session i gets its own stream)
     * @param warmup   how long to drive load first without recording anything (pools, JIT, caches and queues
     *                 settle; DESIGN.md "Benchmark method": warm-up is excluded from results)
     */
    public record Settings(int sessions, Duration duration, long seed, Duration warmup) {
        public Settings {
            if (sessions < 1) throw new IllegalArgumentException("at least one session is needed, got " + sessions);
            if (duration.isNegative() || duration.isZero()) throw new IllegalArgumentException("duration must be positive");
            if (warmup == null) warmup = Duration.ZERO;
            if (warmup.isNegative()) throw new IllegalArgumentException("warm-up must not be negative");
        }

        /** No warm-up: every call counts. */
        public Settings(int sessions, Duration duration, long seed) {
            this(sessions, duration, seed, Duration.ZERO);
        }
    }

    /** Counts of one transaction's calls. */
    public static final class Counts {
        final LongAdder ok = new LongAdder(), aborted = new LongAdder(), failed = new LongAdder();
        public long ok() { return ok.sum(); }
        public long aborted() { return aborted.sum(); }
        public long failed() { return failed.sum(); }
        public long total() { return ok() + aborted() + failed(); }
    }

    /**
     * What a run did.
     *
     * @param seconds       how long load was measured (after the warm-up)
     * @param byTransaction counts per transaction name, sorted by name
     * @param latencyMicros client-side latency per class ("local", "global", or "" when the target does not say)
     * @param failures      the first few FAILED calls, in words
     */
    public record Result(double seconds, int sessions, Map<String, Counts> byTransaction,
                         Map<String, Histogram> latencyMicros, List<String> failures) {
        public long completed() {
            return byTransaction.values().stream().mapToLong(Counts::total).sum();
        }

        public long failed() {
            return byTransaction.values().stream().mapToLong(Counts::failed).sum();
        }

        public long count(String executedAs) {
            Histogram h = latencyMicros.get(executedAs);
            return h == null ? 0 : h.getTotalCount();
        }
    }

    /** Told twice a second how the run is going. */
    @FunctionalInterface
    public interface Progress {
        void update(double elapsedSeconds, double totalSeconds, long completed);
    }

    private static final int KEPT_FAILURES = 10;

    private WorkloadRunner() {}

    public static Result run(Workload workload, Target target, Settings settings, Progress progress)
            throws InterruptedException {
        Map<String, Counts> counts = new ConcurrentHashMap<>();
        Map<String, ConcurrentHistogram> latency = new ConcurrentHashMap<>();
        List<String> failures = Collections.synchronizedList(new ArrayList<>());
        LongAdder completed = new LongAdder();
        AtomicBoolean stop = new AtomicBoolean();
        long warmupNanos = settings.warmup().toNanos();
        long durationNanos = warmupNanos + settings.duration().toNanos();
        long start = System.nanoTime();
        List<Thread> threads = new ArrayList<>();
        List<Throwable> crashed = Collections.synchronizedList(new ArrayList<>());
        for (int i = 0; i < settings.sessions(); i++) {
            int index = i;
            Thread t = new Thread(() -> {
                ClientSession session = workload.newSession(index, sessionRandom(settings.seed(), index));
                Target.Channel channel = target.open();
                Outcome previous = null;
                while (!stop.get()) {
                    Call call = session.next(previous);
                    if (call.thinkMillis() > 0 && !think(call.thinkMillis(), stop)) break;
                    long t0 = System.nanoTime();
                    Target.Result r = channel.execute(call);
                    long micros = Math.max(1, (System.nanoTime() - t0) / 1000);
                    if (System.nanoTime() - start > durationNanos + 60_000_000_000L) break; // a stuck target
                    previous = r.outcome();
                    // Only calls sent after the warm-up and done before the end count: a call cut off by the end
                    // would skew latency towards whatever was slowest to return.
                    long done = System.nanoTime() - start;
                    if (t0 - start < warmupNanos || done > durationNanos) continue;
                    Counts c = counts.computeIfAbsent(call.transaction(), k -> new Counts());
                    switch (r.outcome().status()) {
                        case OK -> c.ok.increment();
                        case ABORTED -> c.aborted.increment();
                        case FAILED -> {
                            c.failed.increment();
                            if (failures.size() < KEPT_FAILURES) failures.add(call + ": " + r.outcome().message());
                        }
                    }
                    latency.computeIfAbsent(r.executedAs(), k -> new ConcurrentHistogram(3)).recordValue(micros);
                    completed.increment();
                }
            }, "workload-session-" + i);
            t.setUncaughtExceptionHandler((th, e) -> crashed.add(e));
            threads.add(t);
            t.start();
        }
        try {
            while (System.nanoTime() - start < durationNanos && crashed.isEmpty()) {
                Thread.sleep(Math.min(500, Math.max(1, (durationNanos - (System.nanoTime() - start)) / 1_000_000)));
                progress.update((System.nanoTime() - start) / 1e9, durationNanos / 1e9, completed.sum());
            }
        } finally {
            stop.set(true);
            for (Thread t : threads) t.join();
        }
        double seconds = Math.min(System.nanoTime() - start, durationNanos) / 1e9 - warmupNanos / 1e9;
        if (!crashed.isEmpty())
            throw new IllegalStateException("a client session crashed: " + crashed.get(0), crashed.get(0));
        Map<String, Histogram> hist = new TreeMap<>(latency);
        return new Result(seconds, settings.sessions(), new TreeMap<>(counts), hist, List.copyOf(failures));
    }

    /** Session i's random source: independent streams of one seed. */
    public static SplittableRandom sessionRandom(long seed, int index) {
        return new SplittableRandom(seed * 0x9E3779B97F4A7C15L + 1_000_003L * (index + 1));
    }

    private static boolean think(long millis, AtomicBoolean stop) {
        long end = System.currentTimeMillis() + millis;
        try {
            for (long left = millis; left > 0 && !stop.get(); left = end - System.currentTimeMillis())
                Thread.sleep(Math.min(left, 100));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        return !stop.get();
    }
}
