package dev.gyro.runtime;

import dev.gyro.driver.Stopping;
import dev.gyro.app.BadRequestException;
import dev.gyro.app.UserAbort;
import dev.gyro.protocol.StateUpdate;
import dev.gyro.runtime.db.Database;
import dev.gyro.runtime.db.Failures;
import dev.gyro.runtime.db.MetadataStore;
import dev.gyro.runtime.db.UnavailableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.function.BooleanSupplier;

/**
 * When the shell runs a DBMS transaction again, and what it does when a commit's outcome is unknown: the one rule of
 * the global requests and the belt's durable actions, on top of the database's one classifier ({@link Failures}).
 * <ul>
 *   <li>A global request that lost a race runs again, up to the database's {@code maxAttempts} (decision 6).</li>
 *   <li>A commit whose answer was lost (a database server that crashed inside it) may have committed: a global
 *       request's gsn is looked up in the outbox ({@link #committedAnyway}), a durable action's retry is told it is
 *       one and checks the recorded state first (decision 5).</li>
 *   <li>A belt action's transaction is tried until it commits while the failure passes ({@link #durably}): the belt
 *       cannot go on without it. Any other failure is thrown, and the loop stops the instance (fail-stop).</li>
 *   <li>A replicated group's write it did not commit leaves its gsn for the group's log to decide
 *       ({@link #groupDecides}): the instance stops and recovers from what its group holds (decision 24).</li>
 * </ul>
 * Thread-safe; its pauses block the calling thread (a global thread, or the belt loop for durable actions).
 */
final class RetryRule {

    private static final Logger log = LoggerFactory.getLogger(RetryRule.class);

    /** One attempt of a belt action's DBMS transaction. */
    interface Work {
        /** @param retry an earlier attempt failed, maybe only its commit's answer: it may have committed */
        void run(Connection c, boolean retry) throws SQLException;
    }

    /** The wait before trying again while the database does not answer. */
    interface Pause {
        /** Waits after attempt {@code attempt} (1 for the first) failed; false if interrupted meanwhile. */
        boolean pause(int attempt);
    }

    private final int self;
    private final Database db;
    private final BooleanSupplier stopping;
    private final Pause lostRace;
    private final Pause databaseDown;

    /** @param stopping true once the instance stops: retries end with {@link Stopping} */
    RetryRule(int self, Database db, BooleanSupplier stopping) {
        this(self, db, stopping, Failures.DATABASE_DOWN::pause);
    }

    /**
     * As {@link #RetryRule(int, Database, BooleanSupplier)}, with {@code databaseDown} instead of
     * {@link Failures#DATABASE_DOWN}'s sleep: a deterministic test, whose database answers again at once, passes a
     * pause that does not sleep.
     */
    RetryRule(int self, Database db, BooleanSupplier stopping, Pause databaseDown) {
        this(self, db, stopping, databaseDown,
                new Backoff(db.options().firstBackoff(), db.options().maxBackoff())::pause);
    }

    /**
     * As {@link #RetryRule(int, Database, BooleanSupplier, Pause)}, with {@code lostRace} instead of the database's
     * backoff between a global request's attempts: a deterministic test passes one that hands its turn back.
     */
    RetryRule(int self, Database db, BooleanSupplier stopping, Pause databaseDown, Pause lostRace) {
        this.self = self;
        this.db = db;
        this.stopping = stopping;
        this.lostRace = lostRace;
        this.databaseDown = databaseDown;
    }

    /**
     * True, after a pause, when attempt {@code attempt} of a global request failed by a lost race and may run again.
     *
     * @throws InterruptedException when interrupted while pausing
     */
    boolean again(int attempt, Exception failure) throws InterruptedException {
        if (attempt >= db.options().maxAttempts() || !db.failures().lostRace(failure)) return false;
        if (!lostRace.pause(attempt)) throw new InterruptedException();
        return true;
    }

    /** True when {@code failure} is a replicated group's refusal whose outcome only its log can tell (decision 24). */
    boolean groupDecides(Exception failure) {
        return failure instanceof UnavailableException && db.replicated();
    }

    /**
     * The update of gsn {@code gsn} if its transaction committed although running it failed: with a database server, a
     * connection lost during COMMIT leaves the outcome unknown, and the database may hold the writes and the gsn.
     * Asked of the database itself (its outbox), as often as it takes to reach it, so that the belt never disagrees
     * with the database about the last gsn. Null after a failure reported before committing.
     *
     * @throws IllegalStateException when the database answers but cannot say (the loop then stops the instance)
     * @throws InterruptedException  when interrupted while pausing
     */
    StateUpdate committedAnyway(long gsn, Exception failure) throws InterruptedException {
        if (failure instanceof UserAbort || failure instanceof BadRequestException) return null;
        try {
            for (int attempt = 1; ; attempt++) {
                if (stopping.getAsBoolean()) throw new Stopping();
                try {
                    StateUpdate found = db.inTransaction(true, c -> MetadataStore.outboxUpdate(c, gsn));
                    if (found != null)
                        log.warn("instance {}: global update {} committed although its transaction reported {}", self,
                                gsn, failure.toString());
                    return found;
                } catch (SQLException | RuntimeException e) {
                    if (!db.failures().passes(e))
                        throw new IllegalStateException("cannot learn whether global update " + gsn + " committed", e);
                    log.warn("instance {} cannot learn whether global update {} committed (attempt {}), retrying: {}",
                            self, gsn, attempt, e.toString());
                    // never silent: the instance's status says db-down while it waits (docs/decisions/18-watching.md)
                    db.failures().health().retrying("learn whether global update " + gsn + " committed", attempt, e);
                    if (!databaseDown.pause(attempt)) throw new InterruptedException();
                }
            }
        } finally {
            db.failures().health().retried();
        }
    }

    /**
     * Runs {@code work} in one write transaction until it commits, again while its failure passes
     * ({@link Failures#passes}).
     *
     * @throws SQLException a failure that does not pass
     * @throws Stopping     when the instance stops meanwhile
     */
    void durably(String what, Work work) throws SQLException {
        try {
            for (int attempt = 1; ; attempt++) {
                if (stopping.getAsBoolean()) throw new Stopping();
                boolean retry = attempt > 1;
                try {
                    db.inTransaction(false, c -> {
                        work.run(c, retry);
                        return null;
                    });
                    return;
                } catch (SQLException | RuntimeException e) {
                    if (!db.failures().passes(e)) throw e;
                    log.warn("instance {} could not {} (attempt {}), retrying: {}", self, what, attempt, e.toString());
                    // never silent: the instance's status says db-down while it waits (docs/decisions/18-watching.md)
                    db.failures().health().retrying(what, attempt, e);
                    if (!databaseDown.pause(attempt)) throw new Stopping();
                }
            }
        } finally {
            db.failures().health().retried();
        }
    }
}
