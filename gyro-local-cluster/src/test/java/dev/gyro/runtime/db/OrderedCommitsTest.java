package dev.gyro.runtime.db;

import dev.gyro.cluster.Backend;
import dev.gyro.cluster.TestServers;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
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
@Tag("servers")
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
                .isInstanceOf(SQLException.class).satisfies(e -> assertThat(db.failures().lostRace(e)).isTrue());
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
                return db.failures().lostRace(e) ? "aborted" : "failed: " + e;
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
            firstSide = db.failures().lostRace(e) ? "aborted" : "failed: " + e;
        }
        String second = laterSide.get(60, TimeUnit.SECONDS);
        assertThat(java.util.List.of(firstSide, second)).as("one aborted, the other committed")
                .containsExactlyInAnyOrder("committed", "aborted");
        first.close();
        later.close();
    }
    /**
     * A request that lost a race runs again alone: while it waits for the running attempts to end, no other attempt
     * starts, so it runs next, before a request that asked to begin after it (else it would wait for every other
     * conflict class's chain to run out, the token waiting with it).
     */
    @Test
    void anAttemptWaitingToRunAloneStartsBeforeOnesAskedForAfterIt() throws Exception {
        Connection running = db.writeConnection();
        OrderedCommits.Attempt a = order.begin(running);
        Connection loser = db.writeConnection();
        Connection other = db.writeConnection();
        CompletableFuture<OrderedCommits.Attempt> alone = new CompletableFuture<>();
        Thread aloneThread = beginOn(loser, true, alone);
        awaitWaiting(aloneThread, alone);
        CompletableFuture<OrderedCommits.Attempt> later = new CompletableFuture<>();
        Thread laterThread = beginOn(other, false, later);
        awaitWaiting(laterThread, later);
        assertThat(later).as("a start asked for while an attempt waits to run alone").isNotDone();

        db.rollback(running);
        order.end(a);
        OrderedCommits.Attempt soloist = alone.get(60, TimeUnit.SECONDS);
        awaitWaiting(laterThread, later);
        assertThat(later).as("no start while the soloist runs").isNotDone();
        db.rollback(loser);
        order.end(soloist);
        OrderedCommits.Attempt next = later.get(60, TimeUnit.SECONDS);
        assertThat(soloist.position()).isLessThan(next.position());
        db.rollback(other);
        order.end(next);
        running.close();
        loser.close();
        other.close();
    }

    private Thread beginOn(Connection c, boolean alone, CompletableFuture<OrderedCommits.Attempt> begun) {
        Thread t = new Thread(() -> {
            try {
                begun.complete(order.begin(c, alone));
            } catch (Exception e) {
                begun.completeExceptionally(e);
            }
        });
        t.start();
        return t;
    }

    /** Until {@code t} waits inside {@link OrderedCommits#begin} (or has begun). */
    private static void awaitWaiting(Thread t, CompletableFuture<?> begun) {
        while (!begun.isDone() && t.getState() != Thread.State.WAITING) Thread.onSpinWait();
    }
}
