package dev.gyro.runtime.db;

import dev.gyro.cluster.Backend;
import dev.gyro.cluster.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Commit ordering (paper Appendix B; docs/decisions/06-commit-ordering.md), shown on real servers: "a request t cannot
 * invoke a commit before all requests that are serialized before t have committed". It is what lets a primary run its
 * queued global requests in parallel and still ship their state updates in an order consistent with how they
 * were serialized: the dialect declares it ({@link Dialect#parallelGlobals()}) and these tests check the
 * declaration against the server.
 *
 * <p>The scenario: a reader R reads row x and later writes row y from what it read; a writer W writes x. When R
 * reads x before W writes it, R is serialized before W whatever the commit order.
 */
@Tag("servers")
class CommitOrderingTest {

    static final String[] SCHEMA = {
        "CREATE TABLE acct (id INTEGER PRIMARY KEY, v INTEGER NOT NULL)",
        "INSERT INTO acct (id, v) VALUES (1, 0), (2, 0)",
    };

    /**
     * PostgreSQL's SERIALIZABLE is SSI: W does not wait for R, commits first, and R, serialized before W, commits
     * after it. Had they been two globals run in parallel, W's update would have taken the earlier gsn: replicas
     * would apply W then R, an order in which R could not have read x = 0. So globals run one at a time.
     */
    @Test
    void postgresLetsAReaderSerializedFirstCommitLast() throws Exception {
        TestServers.require(Backend.POSTGRES);
        try (Database db = Database.open(PostgresDialect.INSTANCE, TestServers.freshDatabase(Backend.POSTGRES, 0))) {
            Db.exec(db, SCHEMA);
            Connection reader = db.writeConnection();
            long seen = read(reader, 1);
            assertThat(seen).isZero();

            Connection writer = db.writeConnection();
            write(writer, 1, 1);
            db.commit(writer); // W commits first: it did not wait for R
            writer.close();

            write(reader, 2, seen + 10); // R writes y from the x it read before W's write
            db.commit(reader); // and commits after W: allowed, because R is serialized before W
            reader.close();

            assertThat(Db.dump(db, "acct")).as("x from W, y from R's read of x = 0: order R, W")
                    .isEqualTo(List.of(BackendCaptureContract.vals(1L, 1L), BackendCaptureContract.vals(2L, 10L)));
            assertThat(PostgresDialect.INSTANCE.parallelGlobals()).as("commit ordering does not hold").isFalse();
        }
    }

    /**
     * MariaDB/InnoDB SERIALIZABLE is strict two-phase locking: R's read of x holds a shared lock until R ends, so
     * W's write of x waits for R's commit; serialized after R, W commits after R.
     */
    @Test
    void mariadbMakesAWriterWaitForTheReaderSerializedBeforeIt() throws Exception {
        TestServers.require(Backend.MARIADB);
        try (Database db = Database.open(MariaDbDialect.INSTANCE, TestServers.freshDatabase(Backend.MARIADB, 0))) {
            Db.exec(db, SCHEMA);
            List<String> commits = new CopyOnWriteArrayList<>();
            Connection reader = db.writeConnection();
            long seen = read(reader, 1);

            CompletableFuture<Void> w = CompletableFuture.runAsync(() -> {
                try (Connection writer = db.writeConnection()) {
                    write(writer, 1, 1);
                    db.commit(writer);
                    commits.add("W");
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThatThrownBy(() -> w.get(500, TimeUnit.MILLISECONDS)).as("W waits for R's lock on x")
                    .isInstanceOf(TimeoutException.class);
            write(reader, 2, seen + 10);
            // Marked before the commit call: W is blocked on R's lock until that commit, so W's own mark cannot
            // come first unless InnoDB let W commit early (marking after the call would race with W's thread).
            commits.add("R");
            db.commit(reader);
            reader.close();
            w.get(30, TimeUnit.SECONDS);

            assertThat(commits).as("commit order = serialization order").containsExactly("R", "W");
            assertThat(Db.dump(db, "acct"))
                    .isEqualTo(List.of(BackendCaptureContract.vals(1L, 1L), BackendCaptureContract.vals(2L, 10L)));
            assertThat(MariaDbDialect.INSTANCE.parallelGlobals()).as("commit ordering holds").isTrue();
        }
    }

    /** The other way round on InnoDB: a reader that comes after an uncommitted write waits, then sees it. */
    @Test
    void mariadbMakesAReaderWaitForAnUncommittedWriteAndSerializesItAfter() throws Exception {
        TestServers.require(Backend.MARIADB);
        try (Database db = Database.open(MariaDbDialect.INSTANCE, TestServers.freshDatabase(Backend.MARIADB, 0))) {
            Db.exec(db, SCHEMA);
            List<String> commits = new CopyOnWriteArrayList<>();
            Connection writer = db.writeConnection();
            write(writer, 1, 1);

            CompletableFuture<Long> r = CompletableFuture.supplyAsync(() -> {
                try (Connection reader = db.writeConnection()) {
                    long seen = read(reader, 1);
                    write(reader, 2, seen + 10);
                    db.commit(reader);
                    commits.add("R");
                    return seen;
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThatThrownBy(() -> r.get(500, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
            commits.add("W"); // before the commit call: R is blocked on W's lock until then (see above)
            db.commit(writer);
            writer.close();
            assertThat(r.get(30, TimeUnit.SECONDS)).as("R read W's write: serialized after W").isEqualTo(1);
            assertThat(commits).containsExactly("W", "R");
        }
    }

    static long read(Connection c, int id) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT v FROM acct WHERE id = " + id)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    static void write(Connection c, int id, long v) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.executeUpdate("UPDATE acct SET v = " + v + " WHERE id = " + id);
        }
    }
}
