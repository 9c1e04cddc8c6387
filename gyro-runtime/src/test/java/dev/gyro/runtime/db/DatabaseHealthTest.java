package dev.gyro.runtime.db;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What an instance's status says about its database (DatabaseHealth): "ok" until a failure that says it cannot be
 * reached, then since when and why until a transaction commits; "retrying to ..." while a thread retries work on it,
 * until that thread is done. (A real PostgreSQL server stopped and started again: gyro-cli's DatabaseDownTest.)
 */
class DatabaseHealthTest {

    @TempDir
    Path dir;
    Database db;

    @AfterEach
    void close() {
        if (db != null) db.close();
    }

    @Test
    void anUnreachableDatabaseIsDownUntilATransactionCommits() throws Exception {
        db = Database.open(SqliteDialect.INSTANCE, dir.resolve("h.db").toString());
        DatabaseHealth health = db.failures().health();
        assertThat(health.status()).containsEntry("database", "ok").containsEntry("databaseDown", false);

        health.unreachable(new SQLTransientConnectionException("pool timed out",
                new SQLException("Connection to 127.0.0.1:5999 refused", "08001")));
        assertThat(health.down()).isTrue();
        assertThat(health.downGauge()).isOne();
        assertThat((String) health.status().get("database")).startsWith("unreachable since ")
                .endsWith(": Connection to 127.0.0.1:5999 refused");

        db.inTransaction(true, c -> null);
        assertThat(health.down()).isFalse();
        assertThat(health.status()).containsEntry("database", "ok");
    }

    @Test
    void workRetriedOnTheDatabaseIsDownUntilItsThreadIsDone() throws Exception {
        db = Database.open(SqliteDialect.INSTANCE, dir.resolve("h.db").toString());
        DatabaseHealth health = db.failures().health();
        SQLException refused = new SQLException("Connection refused", "08001");
        health.retrying("apply the updates of hop 7", 1, refused);
        health.retrying("apply the updates of hop 7", 2, refused);
        assertThat(health.status()).containsEntry("databaseDown", true);
        assertThat((String) health.status().get("database")).startsWith("retrying to apply the updates of hop 7 since ")
                .contains("attempt 2").endsWith(": Connection refused");

        db.inTransaction(true, c -> null); // the database answers, but the belt's work is not done yet
        assertThat(health.down()).isTrue();
        Thread other = new Thread(health::retried); // only the retrying thread ends its retries
        other.start();
        other.join();
        assertThat(health.down()).isTrue();
        health.retried();
        assertThat(health.status()).containsEntry("database", "ok").containsEntry("databaseDown", false);
    }

    /** The probe's executor, held by the test: a probe that has not run yet is one still waiting for its answer. */
    static final class HeldProbes implements java.util.concurrent.Executor {
        final List<Runnable> held = new ArrayList<>();

        @Override
        public void execute(Runnable probe) {
            held.add(probe);
        }
    }

    static final long SECOND = 1_000_000_000L;

    /** The health of a new SQLite database, on a clock of {@code nanos} the test moves. */
    DatabaseHealth healthOn(AtomicLong nanos) throws Exception {
        db = Database.open(SqliteDialect.INSTANCE, dir.resolve("h.db").toString());
        return new DatabaseHealth(db, System::currentTimeMillis, nanos::get);
    }

    @Test
    void aProbeThatDoesNotAnswerWithinTwoSecondsReportsTheDatabaseDown() throws Exception {
        AtomicLong nanos = new AtomicLong();
        DatabaseHealth health = healthOn(nanos);
        HeldProbes probes = new HeldProbes();
        nanos.set(SECOND / 2);
        health.check(probes);
        assertThat(probes.held).as("nothing answered for half a second: no probe yet").isEmpty();
        nanos.set(3 * SECOND / 2);
        health.check(probes);
        assertThat(probes.held).hasSize(1);
        nanos.set(3 * SECOND);
        health.check(probes);
        assertThat(health.down()).as("1.5 s without an answer").isFalse();
        nanos.set(4 * SECOND);
        health.check(probes);
        assertThat(health.down()).isTrue();
        assertThat((String) health.status().get("database")).endsWith(": no answer within 2 s");
        assertThat(probes.held).hasSize(1);

        nanos.set(5 * SECOND);
        probes.held.get(0).run(); // the probe's answer arrives at last
        assertThat(health.status()).containsEntry("database", "ok");
    }

    @Test
    void aProbeBegunBeforeTheDatabaseAnsweredAgainReportsNothing() throws Exception {
        AtomicLong nanos = new AtomicLong();
        DatabaseHealth health = healthOn(nanos);
        HeldProbes probes = new HeldProbes();
        nanos.set(3 * SECOND / 2);
        health.check(probes); // the probe begins while the server is down, and its pool waits for a connection
        health.unreachable(new SQLException("Connection refused", "08001")); // a transaction finds it down
        nanos.set(2 * SECOND);
        health.answered(); // the server is back: the belt's retried work commits
        assertThat(health.down()).isFalse();

        nanos.set(5 * SECOND); // the probe has not answered for 3.5 s, but it began before the answer
        health.check(probes);
        assertThat(health.status()).as("a stale probe's silence").containsEntry("database", "ok");
        assertThat(probes.held).as("no second probe while the first is under way").hasSize(1);
    }

    @Test
    void aFailureOfTheTransactionsOwnSaysNothingAboutTheDatabase() throws Exception {
        db = Database.open(SqliteDialect.INSTANCE, dir.resolve("h.db").toString());
        try {
            db.inTransaction(false, c -> c.createStatement().execute("SELECT * FROM no_such_table"));
        } catch (SQLException expected) {
            // the transaction's own failure
        }
        assertThat(db.failures().health().down()).isFalse();
    }
}
