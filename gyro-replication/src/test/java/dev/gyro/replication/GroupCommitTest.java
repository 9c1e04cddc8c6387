package dev.gyro.replication;

import dev.gyro.runtime.db.Database;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Group commit on a group's leader (docs/decisions/42-group-commit.md): concurrent requests run one after another in ONE
 * DBMS transaction, each in its own savepoint, their entries pipelined into the log, and the transaction commits once
 * the log committed them all. A failing request ships nothing; a leader lost or killed with a batch open leaves every
 * replica equal, every acknowledged request present once and no request that surely did not apply present.
 */
@Tag("slow")
@Tag("servers")
class GroupCommitTest {

    @TempDir
    Path dir;

    /**
     * The first request holds the write connection until seven others wait for it: all eight then run in its batch,
     * one DBMS commit for eight requests, on each backend.
     */
    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgres", "mariadb"})
    void concurrentWritersShareOneBatchAndOneCommit(String backend) throws Exception {
        int writers = 8;
        GroupSpec spec = Groups.spec(11, 3, Duration.ofSeconds(20));
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try (ReplicatedGroup group = ReplicatedGroup.start(spec, Groups.databases(backend, dir, 3),
                dir.resolve("logs"))) {
            group.awaitLeader(Groups.WAIT);
            group.submit(Groups.order(1));
            GroupReplica leader = group.awaitLeader(Groups.WAIT);
            long batches = leader.batchesCommitted();
            long entries = leader.ownEntriesCommitted();

            CountDownLatch othersWaiting = new CountDownLatch(1);
            GroupWork<Long> first = tx -> {
                await(othersWaiting);
                return Groups.order(2).run(tx);
            };
            List<Future<Long>> done = new ArrayList<>();
            done.add(pool.submit(() -> group.submit(first)));
            awaitCondition(() -> leader.openBatchEntries() == 0 && leader.writersWaiting() == 0);
            for (long id = 3; id <= writers + 1; id++) {
                long order = id;
                done.add(pool.submit(() -> group.submit(Groups.order(order))));
            }
            awaitCondition(() -> leader.writersWaiting() == writers - 1);
            othersWaiting.countDown();
            for (Future<Long> f : done) f.get();

            assertThat(leader.ownEntriesCommitted() - entries).as("entries committed by the leader").isEqualTo(writers);
            assertThat(leader.batchesCommitted() - batches).as("DBMS commits for %d requests", writers).isEqualTo(1);
            assertEqualReplicas(group, writers + 1);
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * A request that fails after writing, in the middle of a batch (after one that ran in it, before one that waits to):
     * rolled back to its savepoint, it ships nothing, and the others commit, on each backend (PostgreSQL refuses every
     * statement of a transaction after a failed one until it rolls back to a savepoint).
     */
    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgres", "mariadb"})
    void aFailingRequestInABatchShipsNothingAndTheOthersCommit(String backend) throws Exception {
        GroupSpec spec = Groups.spec(12, 3, Duration.ofSeconds(20));
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try (ReplicatedGroup group = ReplicatedGroup.start(spec, Groups.databases(backend, dir, 3),
                dir.resolve("logs"))) {
            group.awaitLeader(Groups.WAIT);
            group.submit(Groups.order(1));
            GroupReplica leader = group.awaitLeader(Groups.WAIT);

            CountDownLatch othersWaiting = new CountDownLatch(1);
            GroupWork<Long> first = tx -> {
                await(othersWaiting);
                return Groups.order(2).run(tx);
            };
            AtomicLong totalSeen = new AtomicLong(-1);
            GroupWork<Long> failing = tx -> {
                Groups.order(3).run(tx); // an order, the totals and the metadata written, then a failure
                try (var st = tx.connection().createStatement();
                     var rs = st.executeQuery("SELECT total FROM totals WHERE id = 1")) {
                    rs.next();
                    totalSeen.set(rs.getLong(1));
                }
                try (PreparedStatement ps = tx.connection().prepareStatement(
                        "INSERT INTO orders (id, amount) VALUES (?, ?)")) {
                    ps.setLong(1, 1); // order 1 exists: the request fails
                    ps.setLong(2, 0);
                    ps.executeUpdate();
                }
                return 0L;
            };
            Future<Long> a = pool.submit(() -> group.submit(first));
            awaitCondition(() -> leader.openBatchEntries() == 0 && leader.writersWaiting() == 0);
            Future<Long> b = pool.submit(() -> group.submit(failing));
            awaitCondition(() -> leader.writersWaiting() == 1);
            Future<Long> c = pool.submit(() -> group.submit(Groups.order(4)));
            awaitCondition(() -> leader.writersWaiting() == 2);
            othersWaiting.countDown();

            a.get();
            assertThatThrownBy(b::get).hasCauseInstanceOf(SQLException.class);
            c.get();
            assertThat(totalSeen.get()).as("the failing request ran after order 2, in its batch, and saw it")
                    .isEqualTo(10 + 20 + 30);
            for (int i = 0; i < 3; i++)
                assertThat(Groups.single(group.replica(i).database(), "SELECT COUNT(*) FROM orders WHERE id = 3"))
                        .as("replica %d holds nothing of the failed request", i).isZero();
            Map<String, List<List<dev.gyro.protocol.Value>>> expected = assertEqualReplicas(group, 3);
            assertThat(expected.get("orders")).extracting(row -> row.get(0).toJava()).containsExactly(1L, 2L, 4L);
            assertThat(Groups.single(leader.database(), "SELECT total FROM totals")).isEqualTo(10 + 20 + 40);
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * The leader loses its majority with a batch of entries appended and none committed: the requests are answered
     * UNKNOWN at the commit timeout and the leader's database holds none of them; once the followers return, whichever
     * of the entries the log commits are applied on every replica, from their row images, in their batch's order.
     */
    @Test
    void aBatchWhoseLeaderLostItsMajorityRollsBackAndWhatTheLogKeptIsAppliedEverywhere() throws Exception {
        Duration commitTimeout = Duration.ofSeconds(3);
        GroupSpec spec = Groups.spec(13, 3, commitTimeout);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try (ReplicatedGroup group = ReplicatedGroup.start(spec, Groups.databases(dir, 3), dir.resolve("logs"))) {
            group.awaitLeader(Groups.WAIT);
            group.submit(Groups.order(1));
            GroupReplica leader = group.awaitLeader(Groups.WAIT);
            for (int i = 0; i < 3; i++) if (i != leader.replica()) group.stop(i);

            List<Future<Long>> batch = new ArrayList<>();
            for (long id = 2; id <= 5; id++) {
                long order = id;
                batch.add(pool.submit(() -> leader.submit(Groups.order(order))));
            }
            for (Future<Long> f : batch)
                assertThatThrownBy(f::get).cause().isInstanceOf(GroupUnavailableException.class);
            assertThat(Groups.single(leader.database(), "SELECT COUNT(*) FROM orders")).as("none kept").isEqualTo(1);
            assertThat(Groups.single(leader.database(), "SELECT n FROM totals")).isEqualTo(1);

            for (int i = 0; i < 3; i++) if (group.replica(i) == null) group.restart(i);
            GroupReplica back = group.awaitLeader(Groups.WAIT);
            assertThat(group.awaitApplied(back.lastRequestIndex(), Groups.WAIT)).isTrue();
            group.submit(Groups.order(6));
            var expected = assertEqualReplicas(group, -1);
            List<Object> present = expected.get("orders").stream().map(row -> row.get(0).toJava()).toList();
            assertThat(present).contains(1L, 6L);
            GroupReplica now = group.awaitLeader(Groups.WAIT);
            assertThat(Groups.single(now.database(), "SELECT n FROM totals")).isEqualTo(present.size());
            assertThat(Groups.single(now.database(), "SELECT total FROM totals"))
                    .isEqualTo(Groups.single(now.database(), "SELECT SUM(amount) FROM orders"));
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Writers keep the leader's batches full while the leader is killed twice with a batch open (entries appended that
     * the log has not all committed): every replica ends equal, every acknowledged order is present exactly once, and
     * no order whose request was answered "surely not applied" is present.
     */
    @Test
    void leadersKilledWithABatchOpenLoseNothingAcknowledged() throws Exception {
        int writers = 6;
        GroupSpec spec = Groups.spec(14, 3, Duration.ofSeconds(10));
        try (ReplicatedGroup group = ReplicatedGroup.start(spec, Groups.databases(dir, 3), dir.resolve("logs"))) {
            group.awaitLeader(Groups.WAIT);
            Set<Long> acknowledged = ConcurrentHashMap.newKeySet();
            Set<Long> notApplied = ConcurrentHashMap.newKeySet();
            AtomicLong ids = new AtomicLong();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> failed = new AtomicReference<>();
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                Thread t = new Thread(() -> {
                    try {
                        while (!stop.get()) {
                            long id = ids.incrementAndGet();
                            try {
                                group.submit(Groups.order(id));
                                acknowledged.add(id);
                            } catch (GroupUnavailableException e) {
                                if (e.outcome() == GroupUnavailableException.Outcome.NOT_APPLIED) notApplied.add(id);
                            }
                        }
                    } catch (Throwable t2) {
                        failed.set(t2);
                    }
                }, "writer-" + w);
                threads.add(t);
                t.start();
            }
            for (int kill = 0; kill < 2; kill++) {
                long before = acknowledged.size();
                awaitCondition(() -> acknowledged.size() >= before + 30 || failed.get() != null);
                GroupReplica leader = group.awaitLeader(Groups.WAIT);
                awaitCondition(() -> leader.openBatchEntries() >= 2 || failed.get() != null);
                group.stop(leader.replica());
                long at = acknowledged.size();
                awaitCondition(() -> acknowledged.size() >= at + 30 || failed.get() != null);
                group.restart(leader.replica());
            }
            stop.set(true);
            for (Thread t : threads) t.join();
            assertThat(failed.get()).isNull();

            var expected = assertEqualReplicas(group, -1);
            List<Long> present = new ArrayList<>();
            for (var row : expected.get("orders")) present.add((Long) row.get(0).toJava());
            assertThat(present).containsAll(acknowledged).doesNotHaveDuplicates();
            for (long id : notApplied) assertThat(present).as("order %d, surely not applied", id).doesNotContain(id);
            GroupReplica leader = group.awaitLeader(Groups.WAIT);
            assertThat(Groups.single(leader.database(), "SELECT n FROM totals")).isEqualTo(present.size());
            assertThat(Groups.single(leader.database(), "SELECT total FROM totals"))
                    .isEqualTo(Groups.single(leader.database(), "SELECT SUM(amount) FROM orders"));
            assertThat(Groups.single(leader.database(), "SELECT last_gsn FROM gyro_state")).isEqualTo(present.size());
        }
    }

    /** Waits until every replica applied the leader's log, asserts them equal, and returns the leader's tables. */
    private static Map<String, List<List<dev.gyro.protocol.Value>>> assertEqualReplicas(ReplicatedGroup group,
                                                                                      int orders) throws Exception {
        GroupReplica leader = group.awaitLeader(Groups.WAIT);
        assertThat(group.awaitApplied(leader.lastLogIndex(), Groups.WAIT)).isTrue();
        var expected = Groups.contents(leader.database());
        if (orders >= 0) assertThat(expected.get("orders")).hasSize(orders);
        for (int i = 0; i < group.spec().size(); i++) {
            GroupReplica r = group.replica(i);
            assertThat(Groups.contents(r.database())).as("replica %d", i).isEqualTo(expected);
            assertThat(r.storedIndex()).as("replica %d records the last request's index", i)
                    .isEqualTo(leader.lastRequestIndex());
        }
        return expected;
    }

    private static void await(CountDownLatch latch) throws SQLException {
        try {
            if (!latch.await(Groups.WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS))
                throw new SQLException("the test's other requests never lined up");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException(e);
        }
    }

    /** Waits for a condition the group's threads make true (looked at every millisecond), up to {@link Groups#WAIT}. */
    private static void awaitCondition(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Groups.WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("the condition did not hold within " + Groups.WAIT);
            Thread.sleep(1);
        }
    }
}
