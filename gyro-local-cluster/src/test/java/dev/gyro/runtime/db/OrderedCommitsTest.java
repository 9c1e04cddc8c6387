package dev.gyro.runtime.db;

import dev.gyro.cluster.Backend;
import dev.gyro.cluster.TestServers;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link OrderedCommits} on a real PostgreSQL server: the reordering {@link CommitOrderingTest} shows for plain SSI
 * (a reader serialized first commits last) cannot commit, requests that do not conflict run side by side and both
 * commit, and a cycle between row locks and the commit order is a deadlock PostgreSQL breaks.
 */
class OrderedCommitsTest {

    private Database db;
    private final OrderedCommits order = new OrderedCommits(4);

    @BeforeEach
    void schema() throws Exception {
        TestServers.require(Backend.POSTGRES);
        db = Database.open(PostgresDialect.INSTANCE, TestServers.freshDatabase(Backend.POSTGRES, 0));
        db.inTransaction(false, c -> {
            try (Statement st = c.createStatement()) {
                st.execute("CREATE TABLE acct (id INTEGER PRIMARY KEY, v INTEGER NOT NULL)");
                // enough rows that a key lookup is an index scan, whose predicate locks are on rows and pages, not
                // on the whole table
                st.execute("INSERT INTO acct SELECT g, 0 FROM generate_series(1, 5000) g");
            }
            order.createTables(c);
            return null;
        });
        db.inTransaction(false, c -> {
            try (Statement st = c.createStatement()) {
                st.execute("ANALYZE acct");
            }
            return null;
        });
    }

    @org.junit.jupiter.api.AfterEach
    void close() {
        if (db != null) db.close();
    }

    private long value(int id) throws SQLException {
        return db.inTransaction(true, c -> CommitOrderingTest.read(c, id));
    }

    /**
     * The adversarial schedule: the later request reads x, the earlier one writes x and commits first. Under plain SSI
     * both commit, the later one serialized first (CommitOrderingTest); here the later one cannot commit, and its
     * retry reads the earlier one's write: commit order = serialization order.
     */
    @Test
    void aLaterRequestThatReadWhatAnEarlierOneWroteCannotCommitAndItsRetrySeesTheWrite() throws Exception {
        Connection first = db.writeConnection();
        OrderedCommits.Attempt a = order.begin(first);
        Connection later = db.writeConnection();
        OrderedCommits.Attempt b = order.begin(later);
        assertThat(a.position()).isLessThan(b.position());

        long seen = CommitOrderingTest.read(later, 1);
        assertThat(seen).isZero();
        CommitOrderingTest.write(first, 1, 1);
        order.beforeCommit(first, a);
        db.commit(first);
        order.end(a);
        first.close();

        assertThatThrownBy(() -> {
            CommitOrderingTest.write(later, 2, seen + 10);
            order.beforeCommit(later, b);
            db.commit(later);
        }).as("the later request, serialized before the earlier one, may not commit after it")
                .isInstanceOf(SQLException.class).satisfies(e -> assertThat(db.isRetryable(e)).isTrue());
        db.rollback(later);
        order.end(b);
        later.close();

        Connection retry = db.writeConnection();
        OrderedCommits.Attempt c = order.begin(retry);
        long again = CommitOrderingTest.read(retry, 1);
        CommitOrderingTest.write(retry, 2, again + 10);
        order.beforeCommit(retry, c);
        db.commit(retry);
        order.end(c);
        retry.close();
        assertThat(value(2)).as("y from the retry's read of x = 1").isEqualTo(11);
    }

    /**
     * Rows far apart (on different index pages: SSI's predicate locks on an index are per page, and an update that
     * is not HOT inserts into the index, so neighbours conflict as they would between any two transactions).
     */
    @Test
    void requestsOnDifferentRowsRunSideBySideAndBothCommit() throws Exception {
        Connection first = db.writeConnection();
        OrderedCommits.Attempt a = order.begin(first);
        Connection later = db.writeConnection();
        OrderedCommits.Attempt b = order.begin(later);

        long x = CommitOrderingTest.read(later, 2500);
        CommitOrderingTest.write(first, 1, 1);
        CommitOrderingTest.write(later, 4000, x + 5);
        order.beforeCommit(first, a);
        db.commit(first);
        order.end(a);
        order.beforeCommit(later, b);
        db.commit(later);
        order.end(b);
        first.close();
        later.close();
        assertThat(value(1)).isEqualTo(1);
        assertThat(value(4000)).isEqualTo(5);
    }

    /**
     * The later request holds a row lock the earlier one needs, and waits for the earlier one before committing: a
     * cycle through PostgreSQL's own locks, which its deadlock detector breaks by aborting one (retryable).
     */
    @Test
    void aRowLockAgainstTheCommitOrderIsADeadlockPostgresBreaks() throws Exception {
        Connection first = db.writeConnection();
        OrderedCommits.Attempt a = order.begin(first);
        Connection later = db.writeConnection();
        OrderedCommits.Attempt b = order.begin(later);
        CommitOrderingTest.write(later, 7, 70); // later takes the row lock on 7 first

        CountDownLatch laterWaiting = new CountDownLatch(1);
        CompletableFuture<String> laterSide = CompletableFuture.supplyAsync(() -> {
            try {
                laterWaiting.countDown();
                order.beforeCommit(later, b); // waits for the earlier request to end
                db.commit(later);
                order.end(b);
                return "committed";
            } catch (SQLException e) {
                db.rollback(later);
                order.end(b);
                return db.isRetryable(e) ? "aborted" : "failed: " + e;
            }
        });
        laterWaiting.await();
        String firstSide;
        try {
            CommitOrderingTest.write(first, 7, 7); // waits for later's row lock: a cycle
            order.beforeCommit(first, a);
            db.commit(first);
            order.end(a);
            firstSide = "committed";
        } catch (SQLException e) {
            db.rollback(first);
            order.end(a);
            firstSide = db.isRetryable(e) ? "aborted" : "failed: " + e;
        }
        String second = laterSide.get(60, TimeUnit.SECONDS);
        assertThat(java.util.List.of(firstSide, second)).as("one aborted, the other committed")
                .containsExactlyInAnyOrder("committed", "aborted");
        first.close();
        later.close();
    }

    /** Other instances' update applied while {@code ahead}'s attempt waits for its round: x := 1, committed. */
    private void applyWhileParked(boolean readSlots) throws Exception {
        Connection apply = db.writeConnection();
        try {
            CommitOrderingTest.write(apply, 1, 1);
            if (readSlots) order.beforeApplyCommit(apply);
            db.commit(apply);
        } finally {
            order.applyEnded();
            apply.close();
        }
    }

    /**
     * Executed ahead of the token: the attempt read x, then an update of an earlier gsn wrote x and was applied. The
     * attempt, serialized before the update it must follow, cannot commit once its round unparks it; without the
     * apply's read of the parked slots (the same schedule, plain SSI) it commits: the anomaly.
     */
    @Test
    void anAttemptAheadThatReadWhatALaterApplyWroteCannotCommit() throws Exception {
        for (boolean readSlots : new boolean[]{false, true}) {
            db.inTransaction(false, c -> {
                CommitOrderingTest.write(c, 1, 0);
                return null;
            });
            Connection ahead = db.writeConnection();
            OrderedCommits.Attempt parked = order.beginAhead(ahead);
            assertThat(parked).isNotNull();
            long seen = CommitOrderingTest.read(ahead, 1);
            CommitOrderingTest.write(ahead, 4000, seen + 10);

            applyWhileParked(readSlots);

            OrderedCommits.Attempt turn = order.unpark(ahead, parked);
            String outcome;
            try {
                order.beforeCommit(ahead, turn);
                db.commit(ahead);
                outcome = "committed";
            } catch (SQLException e) {
                db.rollback(ahead);
                outcome = db.isRetryable(e) ? "aborted" : "failed: " + e;
            } finally {
                order.end(turn);
                ahead.close();
            }
            if (readSlots) assertThat(outcome).as("read x = 0 before the apply of x = 1 it must follow").isEqualTo("aborted");
            else assertThat(outcome).as("plain SSI lets the stale read commit (the anomaly)").isEqualTo("committed");
        }
    }

    /** An attempt ahead that read nothing an apply wrote commits after it, and while it was parked no one waited for it. */
    @Test
    void anAttemptAheadCommitsAfterUnrelatedAppliesAndCommitsWithoutHoldingThemUp() throws Exception {
        Connection ahead = db.writeConnection();
        OrderedCommits.Attempt parked = order.beginAhead(ahead);
        long x = CommitOrderingTest.read(ahead, 2500);
        CommitOrderingTest.write(ahead, 4000, x + 5);

        applyWhileParked(true);
        // an attempt that began after it, of a higher position, commits first: it does not wait for the parked one
        Connection other = db.writeConnection();
        OrderedCommits.Attempt b = order.begin(other);
        assertThat(b.position()).isGreaterThan(parked.position());
        CommitOrderingTest.write(other, 1200, 3);
        CompletableFuture<Void> otherCommits = CompletableFuture.runAsync(() -> {
            try {
                order.beforeCommit(other, b);
                db.commit(other);
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            } finally {
                order.end(b);
            }
        });
        otherCommits.get(60, TimeUnit.SECONDS);
        other.close();

        OrderedCommits.Attempt turn = order.unpark(ahead, parked);
        assertThat(turn.position()).as("its turn comes after everything that committed meanwhile")
                .isGreaterThan(b.position());
        order.beforeCommit(ahead, turn);
        db.commit(ahead);
        order.end(turn);
        ahead.close();
        assertThat(value(1)).isEqualTo(1);
        assertThat(value(1200)).isEqualTo(3);
        assertThat(value(4000)).isEqualTo(5);
        assertThat(order.running()).isZero();
    }

    /** An attempt ahead never waits for a slot: with every slot taken it begins nothing. */
    @Test
    void anAttemptAheadBeginsNothingWhenEverySlotIsTaken() throws Exception {
        OrderedCommits order = new OrderedCommits(2); // the pool has a connection more than the slots
        java.util.List<Connection> cs = new java.util.ArrayList<>();
        java.util.List<OrderedCommits.Attempt> as = new java.util.ArrayList<>();
        for (int i = 0; i < order.slots(); i++) {
            Connection c = db.writeConnection();
            cs.add(c);
            as.add(order.begin(c));
        }
        Connection c = db.writeConnection();
        assertThat(order.beginAhead(c)).isNull();
        db.rollback(c);
        c.close();
        for (int i = 0; i < cs.size(); i++) {
            db.rollback(cs.get(i));
            order.end(as.get(i));
            cs.get(i).close();
        }
        assertThat(order.running()).isZero();
    }
}
