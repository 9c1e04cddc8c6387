package dev.gyro.runtime.db;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.LongSupplier;

/**
 * Whether one instance's database answers, as its transactions and a probe find it, so that a database outage is never
 * silent (docs/decisions/18-watching.md): the instance's Status, metrics and live view, and {@code gyro status}, say
 * {@code db-down} while the database is unreachable or the instance retries work it cannot go on without (the belt's
 * durable actions, learning whether a global committed; {@link Failures#DATABASE_DOWN}). Watches only: what to retry
 * is {@link Failures}'s and the instance's retry rule's to decide.
 *
 * <p>Fed by the database's own transactions ({@link #answered()} for each that committed, {@link #unreachable} for a
 * failure of kind {@link Failures.Kind#UNREACHABLE}), by the retries ({@link #retrying}, {@link #retried}), and by a
 * probe that {@link #check} starts once a second when nothing answered in the last second: an idle instance whose
 * server stopped is reported too. A probe that has not answered after {@link #NO_ANSWER} counts as unreachable (a
 * pool waits up to its connection timeout, 30 s, before it gives up). The change each way is logged once: WARN when it
 * goes down, INFO when it is back.
 *
 * <p>Thread-safe: {@link #answered()} is on every transaction's way and costs a clock read and a volatile read (a
 * write at most ten times a second).
 */
public final class DatabaseHealth {

    private static final Logger log = LoggerFactory.getLogger(DatabaseHealth.class);

    /** How long a probe may go unanswered before the database counts as unreachable. */
    public static final Duration NO_ANSWER = Duration.ofSeconds(2);
    /** An answer this recent is recent enough for the probe, which looks back one second. */
    private static final long FRESH_NANOS = 100_000_000L;

    /** The longest error text kept. */
    private static final int MAX_WHY = 300;

    /** A retry loop in progress: what it retries, since when (wall-clock ms), its attempts and last failure. */
    private record Retry(String what, long since, int attempts, String why) {}

    private final Database db;
    private final LongSupplier clock; // wall-clock milliseconds: "since" is a time of day
    private final LongSupplier nanos; // System.nanoTime: what "the last second" is measured with
    private volatile String name = "the database";
    private volatile long lastAnswer; // nanoTime of the last transaction or probe that answered
    private volatile boolean unreachable; // mirrors unreachableSince != 0, for the lock-free answered()
    private long unreachableSince; // wall-clock ms, 0 while it answers; guarded by this
    private String why; // guarded by this
    private long probeStarted; // nanoTime of the probe under way, 0 when none; guarded by this
    private long probeStartedAt; // the same, wall-clock ms
    private final Map<Thread, Retry> retries = new ConcurrentHashMap<>();

    DatabaseHealth(Database db) {
        this(db, System::currentTimeMillis, System::nanoTime);
    }

    DatabaseHealth(Database db, LongSupplier clock, LongSupplier nanos) {
        this.db = db;
        this.clock = clock;
        this.nanos = nanos;
        this.lastAnswer = nanos.getAsLong();
    }

    /** How the log names the database ({@code instance 1's PostgreSQL database}). */
    public void name(String name) {
        this.name = name;
    }

    /** A transaction committed, or a probe answered: the database answers. */
    public void answered() {
        // Every transaction passes here, on many threads: the shared field is written only when it is a good part of
        // the probe's second old, so that commits mostly read it (a write would move its cache line between cores).
        long now = nanos.getAsLong();
        if (now - lastAnswer > FRESH_NANOS) lastAnswer = now;
        if (!unreachable) return;
        long since;
        synchronized (this) {
            if (unreachableSince == 0) return;
            since = unreachableSince;
            unreachableSince = 0;
            unreachable = false;
            why = null;
        }
        log.info("{} answers again (unreachable since {}, {})", name, Instant.ofEpochMilli(since), seconds(since));
    }

    /** A transaction failed because the database could not be reached ({@link Failures.Kind#UNREACHABLE}). */
    public void unreachable(Throwable failure) {
        down(clock.getAsLong(), text(failure));
    }

    private void down(long since, String reason) {
        synchronized (this) {
            why = reason;
            if (unreachableSince != 0) return;
            unreachableSince = since;
            unreachable = true;
        }
        log.warn("{} is unreachable since {}: {}; the instance retries what it cannot go on without, and its status"
                + " says db-down until it answers", name, Instant.ofEpochMilli(since), reason);
    }

    /**
     * The calling thread's attempt {@code attempt} of {@code what} failed with {@code failure}, and it tries again:
     * the instance waits for its database.
     */
    public void retrying(String what, int attempt, Throwable failure) {
        Thread t = Thread.currentThread();
        Retry before = retries.get(t);
        long since = before != null && before.what().equals(what) ? before.since() : clock.getAsLong();
        retries.put(t, new Retry(what, since, attempt, text(failure)));
    }

    /** The calling thread's retries ended (what it retried committed, or it gave up). */
    public void retried() {
        retries.remove(Thread.currentThread());
    }

    /**
     * Once a second or so: reports a probe that has not answered for {@link #NO_ANSWER}, and starts one on
     * {@code probes} when nothing answered in the last second and none is under way. A probe that began before the
     * last answer is stale: the database answered since, so its silence (a pool still waiting out a connection it
     * asked for while the server was down) or its failure says nothing, and is not reported.
     */
    public void check(Executor probes) {
        long now = nanos.getAsLong();
        long started;
        long startedAt;
        synchronized (this) {
            started = probeStarted;
            startedAt = probeStartedAt;
            if (started == 0 && now - lastAnswer >= 1_000_000_000L) {
                probeStarted = now;
                probeStartedAt = clock.getAsLong();
                try {
                    probes.execute(this::probe);
                } catch (RejectedExecutionException closing) {
                    probeStarted = 0;
                }
                return;
            }
        }
        if (started != 0 && now - started >= NO_ANSWER.toNanos() && !answeredSince(started))
            down(startedAt, "no answer within " + NO_ANSWER.toSeconds() + " s");
    }

    /**
     * Whether something answered after {@code nanoTime}. Exact for a probe's start: a probe starts only when nothing
     * answered for a second, so the first answer after it moves {@link #lastAnswer}.
     */
    private boolean answeredSince(long nanoTime) {
        return lastAnswer - nanoTime > 0;
    }

    /** One round trip on a pooled connection: a checked-out connection is validated by the pool, then asked. */
    private void probe() {
        try (Connection c = db.readConnection()) {
            try {
                if (!c.isValid((int) Math.max(1, NO_ANSWER.toSeconds())))
                    throw new SQLException("the connection is not valid", "08006");
            } finally {
                db.rollback(c);
            }
            answered();
        } catch (SQLException | RuntimeException e) {
            long started;
            synchronized (this) {
                started = probeStarted;
            }
            // interrupted: the instance closes, which says nothing of the database; nor does a stale probe's failure
            if (!interrupted(e) && !answeredSince(started)) unreachable(e);
        } finally {
            synchronized (this) {
                probeStarted = 0;
            }
        }
    }

    private static boolean interrupted(Throwable t) {
        if (Thread.currentThread().isInterrupted()) return true;
        for (int depth = 0; t != null && depth < 20; depth++, t = t.getCause() == t ? null : t.getCause())
            if (t instanceof InterruptedException) return true;
        return false;
    }

    /** True while the database is unreachable or the instance retries work on it. */
    public boolean down() {
        return unreachable || !retries.isEmpty();
    }

    /** 1 while {@link #down()}, else 0: the metrics' gauge. */
    public int downGauge() {
        return down() ? 1 : 0;
    }

    /**
     * What the Status method says: {@code database} ("ok", or since when it is unreachable and why, and what the
     * instance retries) and {@code databaseDown}.
     */
    public synchronized Map<String, Object> status() {
        Map<String, Object> out = new LinkedHashMap<>();
        StringBuilder s = new StringBuilder();
        if (unreachableSince != 0)
            s.append("unreachable since ").append(Instant.ofEpochMilli(unreachableSince)).append(" (")
                    .append(seconds(unreachableSince)).append("): ").append(why);
        Retry oldest = null;
        for (Retry r : retries.values()) if (oldest == null || r.since() < oldest.since()) oldest = r;
        if (oldest != null) {
            if (!s.isEmpty()) s.append("; ");
            s.append("retrying to ").append(oldest.what()).append(" since ").append(Instant.ofEpochMilli(oldest.since()))
                    .append(" (").append(seconds(oldest.since())).append(", attempt ").append(oldest.attempts())
                    .append(")");
            if (retries.size() > 1) s.append(" and ").append(retries.size() - 1).append(" more");
            if (unreachableSince == 0) s.append(": ").append(oldest.why());
        }
        out.put("database", s.isEmpty() ? "ok" : s.toString());
        out.put("databaseDown", !s.isEmpty());
        return out;
    }

    /**
     * The failure's most telling message: the deepest SQLException's in its causes (a pool's timeout wraps the
     * driver's refusal, which wraps the socket's), else its own.
     */
    public static String text(Throwable t) {
        String text = String.valueOf(t);
        for (int depth = 0; t != null && depth < 20; depth++, t = t.getCause() == t ? null : t.getCause())
            if (t instanceof SQLException && t.getMessage() != null) text = t.getMessage();
        return text.length() <= MAX_WHY ? text : text.substring(0, MAX_WHY) + "...";
    }

    private String seconds(long sinceMillis) {
        return String.format(Locale.ROOT, "%.1f s", (clock.getAsLong() - sinceMillis) / 1000.0);
    }
}
