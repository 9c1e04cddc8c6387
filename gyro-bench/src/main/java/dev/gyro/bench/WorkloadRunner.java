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
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * Drives a {@link Workload} with N client sessions against a {@link Target} for a while, in one of two ways:
 * <ul>
 *   <li><b>closed loop</b> (the default; TPC-W's and RUBiS's emulated browsers): each session thread asks its
 *       {@link ClientSession} for the next call, waits out the call's think time, sends it, and feeds the outcome
 *       back; the offered load is whatever the sessions manage;</li>
 *   <li><b>open loop</b> ({@link OpenLoop}): arrivals at a target rate across all sessions, on a fixed or Poisson
 *       schedule from a seeded source, each handed to the next free session (think times are ignored: the
 *       schedule replaces them). An arrival that finds every session busy waits in a queue (or is dropped when the
 *       queue is bounded and full), and its latency is measured from its <em>intended</em> arrival time, so a slow
 *       system cannot hide its backlog by slowing the clients down (coordinated omission).</li>
 * </ul>
 * Records, after the warm-up: per transaction how many calls were OK, ABORTED and FAILED; client-side latency
 * histograms per transaction and per class (how the target ran the call: local or global); and completed calls per
 * time interval across the measured window.
 *
 * <p>Channels: session i's channel is {@link Target#open(int) open(i)}, called in session order 0..n-1 from the
 * calling thread before any session sends (a WAN placement puts session i at its site, and a homed session's
 * requests must enter at the instance it is homed at).
 */
public final class WorkloadRunner {

    /**
     * @param sessions concurrent client sessions (threads)
     * @param duration how long to drive load and measure, after the warm-up
     * @param seed     seeds every session's random source (session i gets its own stream) and the arrival schedule
     * @param warmup   how long to drive load first without recording anything (pools, JIT, caches and queues
     *                 settle; docs/benchmark-method.md: warm-up is excluded from results)
     * @param openLoop null for a closed loop; otherwise the arrival schedule
     * @param interval the width of one throughput-over-time bucket; null picks one from the duration
     *                 ({@link #defaultInterval})
     * @param calls    0: the run lasts {@code duration}; otherwise it ends as soon as this many calls were recorded
     *                 (calls in flight then still finish and count), {@code duration} being the most it may last
     */
    public record Settings(int sessions, Duration duration, long seed, Duration warmup, OpenLoop openLoop,
                           Duration interval, long calls) {
        public Settings {
            if (sessions < 1) throw new IllegalArgumentException("at least one session is needed, got " + sessions);
            if (duration.isNegative() || duration.isZero()) throw new IllegalArgumentException("duration must be positive");
            if (warmup == null) warmup = Duration.ZERO;
            if (warmup.isNegative()) throw new IllegalArgumentException("warm-up must not be negative");
            if (interval == null) interval = defaultInterval(duration);
            if (interval.toMillis() < 1) throw new IllegalArgumentException("the time-series interval must be at least 1 ms");
            if (calls < 0) throw new IllegalArgumentException("the number of calls must not be negative, got " + calls);
        }

        /** No bound on the number of calls: the run lasts {@code duration}. */
        public Settings(int sessions, Duration duration, long seed, Duration warmup, OpenLoop openLoop,
                        Duration interval) {
            this(sessions, duration, seed, warmup, openLoop, interval, 0);
        }

        /**
         * A closed loop, no warm-up, that ends once {@code calls} calls were recorded, or after {@code atMost} if that
         * comes first: a run bounded by work done rather than by time, so that a loaded machine makes it slower, not
         * shorter of calls (correctness tests).
         */
        public static Settings calls(int sessions, long calls, Duration atMost, long seed) {
            if (calls < 1) throw new IllegalArgumentException("a run bounded by calls needs at least one, got " + calls);
            return new Settings(sessions, atMost, seed, Duration.ZERO, null, null, calls);
        }

        /** A closed loop. */
        public Settings(int sessions, Duration duration, long seed, Duration warmup) {
            this(sessions, duration, seed, warmup, null, null);
        }

        /** A closed loop, no warm-up: every call counts. */
        public Settings(int sessions, Duration duration, long seed) {
            this(sessions, duration, seed, Duration.ZERO);
        }

        public boolean closedLoop() {
            return openLoop == null;
        }
    }

    /** 1 s buckets for runs of 10 s or more; for shorter runs 20 buckets (at least 50 ms each). */
    public static Duration defaultInterval(Duration measured) {
        if (measured.compareTo(Duration.ofSeconds(10)) >= 0) return Duration.ofSeconds(1);
        return Duration.ofMillis(Math.max(50, measured.toMillis() / 20));
    }

    /** How arrivals are spaced in an open loop. */
    public enum Arrivals {
        /** Exactly 1/rate apart. */
        FIXED,
        /** Exponentially distributed gaps of mean 1/rate (a Poisson process), from the run's seed. */
        POISSON;

        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        public static Arrivals parse(String s) {
            for (Arrivals a : values()) if (a.label().equalsIgnoreCase(s.strip())) return a;
            throw new IllegalArgumentException("unknown arrival schedule '" + s + "' (known: fixed, poisson)");
        }
    }

    /**
     * An open loop's schedule.
     *
     * @param ratePerSecond arrivals per second across all sessions
     * @param maxQueued     arrivals that may wait for a free session; one more is dropped (0: never drop, the queue
     *                      grows and the latency from the intended arrival time shows it)
     */
    public record OpenLoop(double ratePerSecond, Arrivals arrivals, int maxQueued) {
        public OpenLoop {
            if (!(ratePerSecond > 0)) throw new IllegalArgumentException("an open loop needs a positive rate, got " + ratePerSecond);
            if (arrivals == null) throw new IllegalArgumentException("an open loop needs an arrival schedule");
            if (maxQueued < 0) throw new IllegalArgumentException("maxQueued must not be negative");
        }
    }

    /** Counts of one transaction's calls (unsupported ones apart: {@link Target#UNSUPPORTED}). */
    public static final class Counts {
        final LongAdder ok = new LongAdder(), aborted = new LongAdder(), failed = new LongAdder(),
                unsupported = new LongAdder();
        volatile String unsupportedWhy;
        public long ok() { return ok.sum(); }
        public long aborted() { return aborted.sum(); }
        public long failed() { return failed.sum(); }
        public long unsupported() { return unsupported.sum(); }
        /** The system's words for why it cannot run this transaction, or null. */
        public String unsupportedWhy() { return unsupportedWhy; }
        /** Calls that ran (unsupported ones excluded). */
        public long total() { return ok() + aborted() + failed(); }
    }

    /**
     * Completed calls per interval across the measured window (a call counts in the interval it was sent in, as it
     * counts in the window: see {@code Recorder.record}).
     *
     * @param completed        calls sent in each interval and completed, in order
     * @param latencyMicrosSum the sum of those calls' latencies, for each interval's mean
     */
    public record Timeline(Duration interval, long[] completed, long[] latencyMicrosSum) {
        public double intervalSeconds() {
            return interval.toNanos() / 1e9;
        }

        /** Calls per second in each interval. */
        public double[] throughput() {
            double[] out = new double[completed.length];
            for (int i = 0; i < out.length; i++) out[i] = completed[i] / intervalSeconds();
            return out;
        }

        /** Mean latency in each interval, in ms (0 where nothing completed). */
        public double[] meanLatencyMs() {
            double[] out = new double[completed.length];
            for (int i = 0; i < out.length; i++) out[i] = completed[i] == 0 ? 0 : latencyMicrosSum[i] / 1000.0 / completed[i];
            return out;
        }
    }

    /**
     * What an open loop offered and what became of it, over the measured window.
     *
     * @param offered    arrivals whose intended time fell in the measured window
     * @param dropped    of those, arrivals that found the queue full ({@link OpenLoop#maxQueued})
     * @param unfinished of those, arrivals still queued or running when the window closed (not in the latencies)
     * @param mostQueued the longest the queue of arrivals waiting for a free session was
     * @param queueWait  time from the intended arrival to the call being sent, in microseconds
     */
    public record OpenLoopResult(OpenLoop schedule, long offered, long dropped, long unfinished, int mostQueued,
                                 Histogram queueWait) {}

    /**
     * What a run did.
     *
     * @param seconds               how long load was measured (after the warm-up)
     * @param byTransaction         counts per transaction name, sorted by name
     * @param latencyMicros         client-side latency per class ("local", "global", or "" when the target does not say)
     * @param latencyByTransaction  client-side latency per transaction name, sorted by name
     * @param timeline              completed calls per interval of the measured window
     * @param openLoop              null for a closed loop
     * @param failures              the first few FAILED calls, in words
     * @param stuckSessions         sessions still waiting for a reply 30 s after the end (then interrupted): the
     *                              system is stuck, and the run is not a result
     */
    public record Result(double seconds, int sessions, Map<String, Counts> byTransaction,
                         Map<String, Histogram> latencyMicros, Map<String, Histogram> latencyByTransaction,
                         Timeline timeline, OpenLoopResult openLoop, List<String> failures, int stuckSessions) {
        public long completed() {
            return byTransaction.values().stream().mapToLong(Counts::total).sum();
        }

        public long failed() {
            return byTransaction.values().stream().mapToLong(Counts::failed).sum();
        }

        /** Calls the system could not run at all ({@link Target#UNSUPPORTED}); not in {@link #completed()}. */
        public long unsupported() {
            return byTransaction.values().stream().mapToLong(Counts::unsupported).sum();
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
    /**
     * A session whose call has not returned this long after the end is stuck (a deadlocked system): the run stops
     * waiting for it, interrupts it and reports it ({@link Result#stuckSessions}).
     */
    private static final long STUCK_NANOS = 30_000_000_000L;

    private WorkloadRunner() {}

    public static Result run(Workload workload, Target target, Settings settings, Progress progress)
            throws InterruptedException {
        Recorder rec = new Recorder(settings);
        int n = settings.sessions();
        // Sessions and channels in session order, here, before any thread runs (see the class comment).
        List<ClientSession> sessions = new ArrayList<>(n);
        List<Target.Channel> channels = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            sessions.add(workload.newSession(i, sessionRandom(settings.seed(), i)));
            channels.add(target.open(i));
        }
        AtomicBoolean stop = new AtomicBoolean();
        List<Throwable> crashed = Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        ArrivalQueue arrivals = settings.closedLoop() ? null : new ArrivalQueue(settings, rec);
        for (int i = 0; i < n; i++) {
            ClientSession session = sessions.get(i);
            Target.Channel channel = channels.get(i);
            Runnable loop = arrivals == null ? () -> closedLoop(session, channel, rec, stop)
                    : () -> arrivals.serve(session, channel, stop);
            threads.add(thread(loop, "workload-session-" + i, crashed));
        }
        if (arrivals != null) threads.add(thread(() -> arrivals.schedule(stop), "workload-arrivals", crashed));
        threads.forEach(Thread::start);
        try {
            long durationNanos = rec.endNanos;
            while (rec.elapsed() < durationNanos && crashed.isEmpty() && !rec.enough()) {
                rec.awaitEnough(Math.min(500, Math.max(1, (durationNanos - rec.elapsed()) / 1_000_000)));
                progress.update(rec.elapsed() / 1e9, durationNanos / 1e9, rec.completed.sum());
            }
        } finally {
            stop.set(true);
        }
        int stuck = 0;
        long deadline = System.nanoTime() + STUCK_NANOS;
        for (Thread t : threads) {
            t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
            if (!t.isAlive()) continue;
            stuck++;
            t.interrupt(); // a call blocked forever (e.g. on a lock or an emulated server's slot) may give up now
        }
        if (!crashed.isEmpty())
            throw new IllegalStateException("a client session crashed: " + crashed.get(0), crashed.get(0));
        return rec.result(arrivals == null ? null : arrivals.result(), stuck);
    }

    private static Thread thread(Runnable r, String name, List<Throwable> crashed) {
        Thread t = new Thread(r, name);
        t.setDaemon(true); // a session stuck in a call must not keep the JVM alive
        t.setUncaughtExceptionHandler((th, e) -> crashed.add(e));
        return t;
    }

    private static void closedLoop(ClientSession session, Target.Channel channel, Recorder rec, AtomicBoolean stop) {
        Outcome previous = null;
        while (!stop.get()) {
            Call call = session.next(previous);
            if (call.thinkMillis() > 0 && !think(call.thinkMillis(), stop)) break;
            long sent = rec.elapsed();
            Target.Result r = channel.execute(call);
            long done = rec.elapsed();
            if (done > rec.endNanos + STUCK_NANOS) break;
            previous = r.outcome();
            rec.record(call, r, sent, done);
        }
    }

    /** Everything one run records; shared by the session threads. */
    private static final class Recorder {
        final long start = System.nanoTime();
        final long warmupNanos, endNanos, intervalNanos;
        final Duration interval;
        final Map<String, Counts> counts = new ConcurrentHashMap<>();
        final Map<String, ConcurrentHistogram> byClass = new ConcurrentHashMap<>();
        final Map<String, ConcurrentHistogram> byTransaction = new ConcurrentHashMap<>();
        final List<String> failures = Collections.synchronizedList(new ArrayList<>());
        final LongAdder completed = new LongAdder();
        final AtomicLongArray perInterval, latencyPerInterval;
        final int sessions;
        /** Counts the calls still wanted down to zero ({@link Settings#calls}); null: the run is bounded by time. */
        final CountDownLatch wanted;
        /** When the measured window closed because enough calls were recorded ({@link #wanted}); else MAX_VALUE. */
        final AtomicLong closedEarly = new AtomicLong(Long.MAX_VALUE);

        Recorder(Settings s) {
            wanted = s.calls() > 0 ? new CountDownLatch((int) Math.min(Integer.MAX_VALUE, s.calls())) : null;
            warmupNanos = s.warmup().toNanos();
            endNanos = warmupNanos + s.duration().toNanos();
            interval = s.interval();
            intervalNanos = s.interval().toNanos();
            int buckets = (int) Math.max(1, (s.duration().toNanos() + intervalNanos - 1) / intervalNanos);
            perInterval = new AtomicLongArray(buckets);
            latencyPerInterval = new AtomicLongArray(buckets);
            sessions = s.sessions();
        }

        long elapsed() {
            return System.nanoTime() - start;
        }

        boolean enough() {
            return wanted != null && wanted.getCount() == 0;
        }

        /** Waits up to {@code millis} for the calls wanted, or just waits where the run is bounded by time. */
        void awaitEnough(long millis) throws InterruptedException {
            if (wanted == null) Thread.sleep(millis);
            else wanted.await(millis, TimeUnit.MILLISECONDS);
        }


        boolean inWindow(long sinceStart) {
            return sinceStart >= warmupNanos && sinceStart < endNanos;
        }

        /**
         * Records one call that started (was sent, or in an open loop was due) at {@code from} and completed at
         * {@code done}, both in nanoseconds since the start. The calls that count are those that start in the
         * measured window, however late they complete (sessions finish the call in flight at the end): counting
         * those that also completed before the end left out exactly the slowest calls of a window, and the more a
         * system had (2pc's createEmptyCart at 128 clients took up to 10 s), the lower its mean came out; its
         * sessions then seemed idle for two thirds of the window (Little's law).
         */
        boolean record(Call call, Target.Result r, long from, long done) {
            if (from < warmupNanos || from >= Math.min(endNanos, closedEarly.get())) return false;
            long micros = Math.max(1, (done - from) / 1000);
            Counts c = counts.computeIfAbsent(call.transaction(), k -> new Counts());
            if (Target.UNSUPPORTED.equals(r.executedAs())) {
                // refused at once: its "latency" would flatter the system, so it is counted apart
                c.unsupported.increment();
                if (c.unsupportedWhy == null) c.unsupportedWhy = r.outcome().message();
                return false;
            }
            switch (r.outcome().status()) {
                case OK -> c.ok.increment();
                case ABORTED -> c.aborted.increment();
                case FAILED -> {
                    c.failed.increment();
                    if (failures.size() < KEPT_FAILURES) failures.add(call + ": " + r.outcome().message());
                }
            }
            byClass.computeIfAbsent(r.executedAs(), k -> new ConcurrentHistogram(3)).recordValue(micros);
            byTransaction.computeIfAbsent(call.transaction(), k -> new ConcurrentHistogram(3)).recordValue(micros);
            int bucket = (int) Math.min(perInterval.length() - 1, (from - warmupNanos) / intervalNanos);
            perInterval.incrementAndGet(bucket);
            latencyPerInterval.addAndGet(bucket, micros);
            completed.increment();
            if (wanted != null) {
                wanted.countDown();
                // the window closes with the last call wanted: calls sent later are not counted, those in flight are
                if (wanted.getCount() == 0) closedEarly.compareAndSet(Long.MAX_VALUE, elapsed());
            }
            return true;
        }

        Result result(OpenLoopResult open, int stuck) {
            double seconds = (Math.min(endNanos, closedEarly.get()) - warmupNanos) / 1e9;
            long[] tp = new long[perInterval.length()], lat = new long[perInterval.length()];
            for (int i = 0; i < tp.length; i++) {
                tp[i] = perInterval.get(i);
                lat[i] = latencyPerInterval.get(i);
            }
            return new Result(seconds, sessions, new TreeMap<>(counts), new TreeMap<>(byClass),
                    new TreeMap<>(byTransaction), new Timeline(interval, tp, lat), open, List.copyOf(failures), stuck);
        }
    }

    /** The open loop: one thread schedules arrivals, the session threads serve them. */
    private static final class ArrivalQueue {
        final OpenLoop schedule;
        final Recorder rec;
        final SplittableRandom random;
        final BlockingQueue<Long> queue;
        final LongAdder offered = new LongAdder(), dropped = new LongAdder(), recorded = new LongAdder();
        final ConcurrentHistogram queueWait = new ConcurrentHistogram(3);
        volatile int mostQueued;

        ArrivalQueue(Settings settings, Recorder rec) {
            this.schedule = settings.openLoop();
            this.rec = rec;
            // Its own stream of the run's seed: the schedule is the same whatever the sessions draw.
            this.random = new SplittableRandom(settings.seed() ^ 0x5DEECE66DL);
            this.queue = schedule.maxQueued() > 0 ? new LinkedBlockingQueue<>(schedule.maxQueued()) : new LinkedBlockingQueue<>();
        }

        /** Puts each arrival on the queue at its intended time (nanoseconds since the start), until the end. */
        void schedule(AtomicBoolean stop) {
            double meanGapNanos = 1e9 / schedule.ratePerSecond();
            double due = 0;
            while (!stop.get()) {
                due += schedule.arrivals() == Arrivals.FIXED ? meanGapNanos
                        : -meanGapNanos * Math.log(1 - random.nextDouble());
                long at = (long) due;
                if (at >= rec.endNanos) return;
                for (long wait = at - rec.elapsed(); wait > 0 && !stop.get(); wait = at - rec.elapsed())
                    LockSupport.parkNanos(Math.min(wait, 50_000_000L));
                boolean counted = rec.inWindow(at);
                if (counted) offered.increment();
                if (!queue.offer(at)) {
                    if (counted) dropped.increment();
                    continue;
                }
                int size = queue.size();
                if (size > mostQueued) mostQueued = size;
            }
        }

        /** One session: takes the next due arrival, sends the session's next call, measures from the due time. */
        void serve(ClientSession session, Target.Channel channel, AtomicBoolean stop) {
            Outcome previous = null;
            try {
                while (!stop.get()) {
                    Long due = queue.poll(50, TimeUnit.MILLISECONDS);
                    if (due == null) continue;
                    Call call = session.next(previous);
                    long sent = rec.elapsed();
                    Target.Result r = channel.execute(call);
                    long done = rec.elapsed();
                    if (done > rec.endNanos + STUCK_NANOS) break;
                    previous = r.outcome();
                    if (rec.record(call, r, due, done)) {
                        recorded.increment();
                        queueWait.recordValue(Math.max(0, (sent - due) / 1000));
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        OpenLoopResult result() {
            long o = offered.sum(), d = dropped.sum();
            return new OpenLoopResult(schedule, o, d, Math.max(0, o - d - recorded.sum()), mostQueued, queueWait);
        }
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
