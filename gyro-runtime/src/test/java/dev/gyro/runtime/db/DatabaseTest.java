package dev.gyro.runtime.db;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The pools, transactions and retries of {@link Database} on real SQLite files. */
class DatabaseTest {

    @TempDir
    Path dir;

    private static Object pragma(Connection c, String name) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("PRAGMA " + name)) {
            rs.next();
            return rs.getObject(1);
        }
    }

    private static long count(Connection c, String table) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT count(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static void insert(Connection c, long id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO t (id) VALUES (?)")) {
            ps.setLong(1, id);
            ps.executeUpdate();
        }
    }

    private Database openWithTable(Database.Options options) throws SQLException {
        Database db = Db.open(dir.resolve("sub/dir"), "db.sqlite", options); // parent directories are created
        Db.exec(db, "CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, n INTEGER NOT NULL DEFAULT 0)");
        return db;
    }

    @Test
    void opensOneFilePerInstanceWithWalAndTheConfiguredSettings() throws SQLException {
        try (Database db = openWithTable(Database.Options.defaults().withForeignKeys(true)
                .withBusyTimeout(Duration.ofMillis(1234)))) {
            assertThat(Files.exists(dir.resolve("sub/dir/db.sqlite"))).isTrue();
            assertThat(db.dialect().parallelGlobals()).isFalse();
            db.inTransaction(false, c -> {
                assertThat(c.getAutoCommit()).isFalse();
                assertThat(pragma(c, "journal_mode")).isEqualTo("wal");
                assertThat(pragma(c, "busy_timeout")).isEqualTo(1234);
                assertThat(pragma(c, "foreign_keys")).isEqualTo(1);
                assertThat(pragma(c, "synchronous")).isEqualTo(1); // NORMAL
                return null;
            });
            db.inTransaction(true, c -> {
                assertThat(pragma(c, "query_only")).isEqualTo(1);
                assertThatThrownBy(() -> insert(c, 1)).isInstanceOf(SQLException.class).hasMessageContaining("readonly");
                return null;
            });
        }
    }

    /**
     * docs/decisions/37-request-ids.md: a transaction whose client's deadline passed does not begin, and one whose
     * deadline passes while it runs rolls back instead of committing behind the client's back.
     */
    @Test
    void aTransactionPastItsDeadlineDoesNotCommit() throws SQLException {
        try (Database db = openWithTable(Database.Options.defaults())) {
            boolean[] ran = new boolean[1];
            assertThatThrownBy(() -> db.inTransaction(false, System.nanoTime() - 1, c -> ran[0] = true))
                    .isInstanceOf(DeadlinePassedException.class).hasMessageContaining("not begun")
                    .hasMessageContaining("its client's deadline passed");
            assertThat(ran[0]).isFalse();

            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
            assertThatThrownBy(() -> db.inTransaction(false, deadline, c -> {
                insert(c, 1);
                while (System.nanoTime() - deadline < 0) Thread.onSpinWait(); // until the deadline has passed
                return null;
            })).isInstanceOf(DeadlinePassedException.class).hasMessageContaining("not committed");
            long none = db.inTransaction(true, c -> count(c, "t"));
            assertThat(none).isZero();

            long later = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
            db.inTransaction(false, later, c -> {
                insert(c, 2);
                return null;
            });
            long one = db.inTransaction(true, c -> count(c, "t"));
            assertThat(one).isOne();
            assertThat(db.failures().kind(new DeadlinePassedException("x"))).isEqualTo(Failures.Kind.REFUSED);
        }
    }

    /**
     * A connection is waited for until the deadline only; a pool whose connections are all in use says nothing about
     * the database, whose health stays up (docs/decisions/37-request-ids.md).
     */
    @Test
    void aConnectionIsWaitedForUntilTheDeadlineOnly() throws SQLException {
        try (Database db = openWithTable(Database.Options.defaults().withPoolSizes(1, 1))) {
            Connection held = db.writeConnection();
            try {
                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
                assertThatThrownBy(() -> db.inTransaction(false, deadline, c -> {
                    insert(c, 1);
                    return null;
                })).isInstanceOf(java.sql.SQLTransientConnectionException.class)
                        .hasMessageContaining("request timed out");
                assertThat(System.nanoTime() - deadline).isLessThan(TimeUnit.SECONDS.toNanos(5));
                assertThat(db.failures().health().down()).isFalse();
            } finally {
                db.rollback(held);
                held.close();
            }
        }
    }

    @Test
    void refusesTargetsThatCannotHoldAnInstance() {
        assertThatThrownBy(() -> Database.open(SqliteDialect.INSTANCE, "jdbc:sqlite::memory:"))
                .isInstanceOf(SQLException.class).hasMessageContaining("must be a file");
        assertThatThrownBy(() -> Database.open(SqliteDialect.INSTANCE, "jdbc:postgresql://x/y"))
                .isInstanceOf(SQLException.class).hasMessageContaining("not a SQLite JDBC URL");
    }

    @Test
    void readersSeeTheLastCommittedStateWhileTheWriterHoldsItsTransaction() throws SQLException {
        try (Database db = openWithTable(Database.Options.defaults())) {
            Db.exec(db, "INSERT INTO t (id) VALUES (1)");
            Connection w = db.writeConnection();
            try {
                insert(w, 2);
                assertThat(Db.count(db, "t")).isEqualTo(1); // a reader does not wait for the writer
                db.commit(w);
            } finally {
                w.close();
            }
            assertThat(Db.count(db, "t")).isEqualTo(2);
        }
    }

    @Test
    void commitAndRollbackReleaseTheWriteLockAtOnce() throws Exception {
        // sqlite-jdbc begins the next transaction inside commit()/rollback(); with BEGIN IMMEDIATE that would keep
        // the write lock. Database's commit/rollback must not: another writer gets in without waiting.
        try (Database db = openWithTable(Database.Options.defaults().withBusyTimeout(Duration.ofMillis(20))
                .withRetries(1, Duration.ofMillis(1), Duration.ofMillis(1)))) {
            Connection a = db.writeConnection();
            insert(a, 1);
            db.commit(a);
            db.inTransaction(false, c -> { insert(c, 2); return null; }); // would fail busy if a held the lock
            Connection b = db.writeConnection();
            insert(b, 3);
            db.rollback(b);
            db.inTransaction(false, c -> { insert(c, 4); return null; });
            a.close();
            b.close();
            Connection d = db.writeConnection();
            insert(d, 5);
            d.close(); // closing without commit rolls back
            assertThat(Db.count(db, "t")).isEqualTo(3);
            assertThat(db.retries()).isZero();
        }
    }

    @Test
    void aBusyWriterIsRetriedUntilTheOtherWriterCommits() throws Exception {
        try (Database db = openWithTable(Database.Options.defaults().withBusyTimeout(Duration.ofMillis(30))
                .withRetries(50, Duration.ofMillis(5), Duration.ofMillis(40)))) {
            CountDownLatch locked = new CountDownLatch(1);
            CompletableFuture<Void> holder = CompletableFuture.runAsync(() -> {
                try {
                    db.inTransaction(false, c -> {
                        insert(c, 1);
                        locked.countDown();
                        Thread.sleep(400); // holds the write lock well past the busy timeout
                        return null;
                    });
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThat(locked.await(10, TimeUnit.SECONDS)).isTrue();
            long started = System.nanoTime();
            long seenBefore = db.inTransaction(false, c -> {
                long n = count(c, "t");
                insert(c, 2);
                return n;
            });
            // One writer at a time: the second transaction began only after the first committed, so it saw the
            // first's row, and the commit order is the serialization order (docs/decisions/06-commit-ordering.md, for
            // SQLite).
            assertThat(seenBefore).isEqualTo(1);
            long waitedMs = (System.nanoTime() - started) / 1_000_000;
            holder.get(10, TimeUnit.SECONDS);
            assertThat(db.retries()).isPositive();
            assertThat(waitedMs).isGreaterThanOrEqualTo(200);
            assertThat(Db.count(db, "t")).isEqualTo(2);
        }
    }

    @Test
    void retriesAreBoundedAndTheLastBusyErrorIsThrown() throws Exception {
        try (Database db = openWithTable(Database.Options.defaults().withBusyTimeout(Duration.ofMillis(10))
                .withRetries(3, Duration.ofMillis(2), Duration.ofMillis(5)))) {
            Connection holder = db.writeConnection();
            try {
                insert(holder, 1);
                assertThatThrownBy(() -> db.inTransaction(false, c -> {
                    insert(c, 2);
                    return null;
                })).isInstanceOfSatisfying(SQLException.class, e -> assertThat(db.failures().lostRace(e)).isTrue())
                        .hasMessageContaining("SQLITE_BUSY");
                assertThat(db.retries()).isEqualTo(2);
            } finally {
                db.rollback(holder);
                holder.close();
            }
            assertThat(Db.count(db, "t")).isZero();
        }
    }

    @Test
    void aFailingUnitOfWorkRollsBackAndIsNotRetried() throws SQLException {
        try (Database db = openWithTable(Database.Options.defaults())) {
            IllegalStateException boom = new IllegalStateException("no stock");
            assertThatThrownBy(() -> db.inTransaction(false, c -> {
                insert(c, 1);
                throw boom;
            })).isSameAs(boom);
            assertThatThrownBy(() -> db.inTransaction(false, c -> {
                insert(c, 2);
                throw new java.io.IOException("checked");
            })).isInstanceOf(SQLException.class).hasCauseInstanceOf(java.io.IOException.class);
            assertThat(db.retries()).isZero();
            assertThat(Db.count(db, "t")).isZero();
        }
    }

    @Test
    void concurrentReadModifyWriteTransactionsLoseNoUpdate() throws Exception {
        try (Database db = openWithTable(Database.Options.defaults().withPoolSizes(4, 4)
                .withBusyTimeout(Duration.ofMillis(50)))) {
            Db.exec(db, "INSERT INTO t (id, n) VALUES (1, 0)");
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int w = 0; w < 4; w++) {
                    done.add(pool.submit(() -> {
                        for (int i = 0; i < 25; i++) {
                            db.inTransaction(false, c -> {
                                long n;
                                try (Statement st = c.createStatement();
                                     ResultSet rs = st.executeQuery("SELECT n FROM t WHERE id = 1")) {
                                    rs.next();
                                    n = rs.getLong(1);
                                }
                                try (PreparedStatement ps = c.prepareStatement("UPDATE t SET n = ? WHERE id = 1")) {
                                    ps.setLong(1, n + 1);
                                    ps.executeUpdate();
                                }
                                return null;
                            });
                        }
                        return null;
                    }));
                }
                for (Future<?> f : done) f.get(30, TimeUnit.SECONDS);
            } finally {
                pool.shutdownNow();
            }
            long n = db.inTransaction(true, c -> {
                try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT n FROM t WHERE id = 1")) {
                    rs.next();
                    return rs.getLong(1);
                }
            });
            assertThat(n).isEqualTo(100);
        }
    }
}
