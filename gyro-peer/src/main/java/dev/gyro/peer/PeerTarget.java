package dev.gyro.peer;

import dev.gyro.runtime.Backoff;

import dev.gyro.app.Application;
import dev.gyro.app.Call;
import dev.gyro.app.Classification;
import dev.gyro.app.Outcome;
import dev.gyro.app.TransactionCatalog;
import dev.gyro.app.TxContext;
import dev.gyro.app.UserAbort;
import dev.gyro.bench.Target;
import dev.gyro.protocol.Value;
import dev.gyro.cluster.Backend;
import dev.gyro.emulation.Capacity;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.random.RandomGenerator;

/**
 * The peer's target: each call is one XA transaction on a connection of the ShardingSphere data source (auto-commit
 * off begins it, commit on success, rollback on any exception), as an application on ShardingSphere-JDBC would run
 * it. A transaction that lost a race (a serialization failure or deadlock, which serializable isolation produces
 * under contention) runs again from the start, up to {@link #MAX_ATTEMPTS} times, as any real application must; the
 * retries are counted. A call of a transaction the peer cannot run ({@link Unsupported}) fails at once, naming the
 * statement and why, reported as {@value #UNSUPPORTED}.
 *
 * <p>Each call is reported under the class the application's classification gives it, so per-class latencies
 * compare with Gyro's.
 */
final class PeerTarget implements Target {

    private static final Logger log = LoggerFactory.getLogger(PeerTarget.class);
    /**
     * The 2pc baseline's budget ({@code TwoPhaseCommitSystem.MAX_ATTEMPTS}): with 20, RUBiS's registerItem (every
     * call increments one IDS row) gave up under 32 clients on 4 and 8 PostgreSQL shards and made those points invalid.
     */
    static final int MAX_ATTEMPTS = 50;
    /** How a call of a transaction the peer cannot run is reported ({@link Target.Result#executedAs()}). */
    static final String UNSUPPORTED = "unsupported";

    private final TransactionCatalog catalog;
    private final Classification classification;
    private final Map<String, Unsupported.Reason> unsupported;
    private final DataSource dataSource;
    private final Backend backend;
    private final Map<String, Capacity> servers;
    private final AtomicLong requests = new AtomicLong();
    private final LongAdder retries = new LongAdder();
    private final LongAdder crossShard = new LongAdder();
    private final LongAdder committed = new LongAdder();
    private final Semaphore inFlight;

    /**
     * @param servers  each instance's emulated server, by data source name
     * @param inFlight transactions run at once at most (see {@link ShardingSphereSystem#IN_FLIGHT})
     */
    PeerTarget(Application app, DataSource dataSource, Backend backend, Map<String, Capacity> servers, int inFlight) {
        this.catalog = new TransactionCatalog(app.transactions());
        this.classification = app.classification();
        this.unsupported = Unsupported.of(app.name(), backend);
        this.dataSource = dataSource;
        this.backend = backend;
        this.servers = Map.copyOf(servers);
        this.inFlight = new Semaphore(inFlight, true);
    }

    /** Attempts that lost a race and ran again. */
    long retries() {
        return retries.sum();
    }

    /** Committed transactions that sent SQL to more than one instance (so committed with two-phase commit). */
    long crossShard() {
        return crossShard.sum();
    }

    long committed() {
        return committed.sum();
    }

    @Override
    public Channel open() {
        return this::execute;
    }

    private Result execute(Call call) {
        String kind;
        TransactionCatalog.Entry entry;
        List<Value> params = new ArrayList<>();
        try {
            kind = classification.rule(call.transaction()).kind().label();
            entry = catalog.get(call.transaction());
            for (Object p : call.parameters()) params.add(Value.of(p));
        } catch (RuntimeException e) {
            return new Result(failed(e.getMessage()), "");
        }
        Unsupported.Reason no = unsupported.get(call.transaction());
        // Reported apart from the class, so that instant refusals do not pass for fast calls in its latencies.
        if (no != null) return new Result(failed(no.describe(call.transaction())), UNSUPPORTED);
        // Fixed per call, not per attempt: a transaction sees the same clock and random draws on every retry.
        long now = System.currentTimeMillis();
        long seed = requests.incrementAndGet();
        try {
            inFlight.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Result(failed(call.transaction() + " interrupted while waiting for a turn"), kind);
        }
        try {
            return run(call, entry, params, now, seed, kind);
        } finally {
            inFlight.release();
        }
    }

    private Result run(Call call, TransactionCatalog.Entry entry, List<Value> params, long now, long seed, String kind) {
        for (int attempt = 1; ; attempt++) {
            ShardCharges.Attempt charges = new ShardCharges.Attempt(servers);
            ShardCharges.begin(charges);
            try {
                Object result = runOnce(entry, params, now, seed);
                committed.increment();
                if (charges.touched().size() > 1) crossShard.increment();
                return new Result(dev.gyro.bench.Invocations.ok(result), kind);
            } catch (Exception e) {
                UserAbort abort = causeOf(e, UserAbort.class);
                if (abort != null) return new Result(new Outcome(Outcome.Status.ABORTED, List.of(), abort.getMessage()), kind);
                if (attempt < MAX_ATTEMPTS && lostRace(e)) {
                    retries.increment();
                    log.debug("{} attempt {} lost a race, retrying: {}", call.transaction(), attempt, e.toString());
                    if (!pause(attempt)) return new Result(failed(call.transaction() + " interrupted"), kind);
                    continue;
                }
                if (attempt == MAX_ATTEMPTS)
                    return new Result(failed(call.transaction() + " gave up after " + attempt + " attempts, each lost "
                            + "a race (serialization failure or deadlock): " + e), kind);
                log.debug("{} failed on the peer", call, e);
                return new Result(failed(call.transaction() + " failed on the peer"
                        + (attempt > 1 ? " after " + attempt + " attempts" : "") + ": " + e), kind);
            } finally {
                ShardCharges.end();
            }
        }
    }

    /** One XA transaction: begin, run the transaction's code, commit; rolled back on any exception. */
    private Object runOnce(TransactionCatalog.Entry entry, List<Value> params, long now, long seed) throws Exception {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false); // in XA mode this begins the global transaction
            boolean done = false;
            try {
                Object result = entry.invoke(dev.gyro.bench.Invocations.context(c, now, seed), params);
                done = true; // a failed commit has already ended the transaction (Atomikos rolls it back)
                c.commit();
                return result;
            } finally {
                if (!done) rollbackQuietly(c);
            }
        }
    }

    private static void rollbackQuietly(Connection c) {
        try {
            c.rollback();
        } catch (Exception e) {
            log.debug("rollback after a failure failed too: {}", e.toString());
        }
    }

    /**
     * A lost race: the backend's serialization failure or deadlock anywhere in the cause chain, or an XA commit that
     * Atomikos rolled back because a participant refused to prepare (PostgreSQL checks serializable conflicts at
     * PREPARE TRANSACTION, and the driver's XAException does not always carry the SQL state).
     */
    private boolean lostRace(Throwable t) {
        for (int depth = 0; t != null && depth < 20; depth++, t = t.getCause()) {
            if (t instanceof SQLException e)
                for (SQLException n = e; n != null; n = n.getNextException()) {
                    if (backend.dialect().isRetryable(n)) return true;
                    if (n.getNextException() == n) break;
                }
            if (t instanceof javax.transaction.RollbackException) return true;
            if (t.getCause() == t) break;
        }
        return false;
    }

    /** Contending retries spread out, 4 ms doubling to at most 500 ms. */
    private static final Backoff RETRY = Backoff.of(4, 500);

    private static boolean pause(int attempt) {
        return RETRY.pause(attempt);
    }

    private static <T extends Throwable> T causeOf(Throwable t, Class<T> type) {
        for (int depth = 0; t != null && depth < 20; depth++, t = t.getCause())
            if (type.isInstance(t)) return type.cast(t);
        return null;
    }

    private static Outcome failed(String message) {
        return new Outcome(Outcome.Status.FAILED, List.of(), message);
    }

    /** The transaction's view of its environment: the XA connection, and a clock and random source fixed per call. */

    @Override
    public void close() {
        log.info("peer: {} transactions committed, {} of them across shards (two-phase commit), {} retries after lost races",
                committed(), crossShard(), retries());
    }
}
