package dev.gyro.runtime.db;

import dev.gyro.runtime.Backoff;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.SQLException;
import java.util.concurrent.atomic.LongAdder;

/** The retry of {@link Database#inTransaction}: one loop for both implementations. */
final class LostRaces {

    private static final Logger log = LoggerFactory.getLogger(LostRaces.class);

    /** One attempt: begins, runs the work, commits; rolls back and rethrows on any failure. */
    interface Attempt<T> {
        T once() throws Throwable;
    }

    private LostRaces() {}

    /** Runs {@code attempt} again while it loses races ({@link Failures#lostRace}), up to the database's maxAttempts. */
    static <T> T retry(Database db, LongAdder retries, Attempt<T> attempt) throws SQLException {
        Backoff backoff = new Backoff(db.options().firstBackoff(), db.options().maxBackoff());
        for (int n = 1; ; n++) {
            try {
                return attempt.once();
            } catch (Throwable t) {
                if (n < db.options().maxAttempts() && db.failures().lostRace(t)) {
                    retries.increment();
                    log.debug("attempt {} lost a race, retrying: {}", n, t.toString());
                    if (!backoff.pause(n))
                        throw new SQLException("interrupted while waiting to retry a transaction", "57014");
                    continue;
                }
                throw rethrow(t);
            }
        }
    }

    private static RuntimeException rethrow(Throwable t) throws SQLException {
        if (t instanceof SQLException e) throw e;
        if (t instanceof RuntimeException e) throw e;
        if (t instanceof Error e) throw e;
        if (t instanceof InterruptedException) Thread.currentThread().interrupt();
        throw new SQLException("transaction failed: " + t, t);
    }
}
