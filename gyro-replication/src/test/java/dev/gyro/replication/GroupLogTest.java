package dev.gyro.replication;

import dev.gyro.protocol.DurableState;
import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.StateUpdate;
import dev.gyro.protocol.Token;
import dev.gyro.protocol.Value;
import dev.gyro.runtime.db.Database;
import dev.gyro.runtime.db.MetadataStore;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A group's log of row images on real Ratis servers and SQLite files (docs/decisions/22-group-log.md): every replica
 * ends with the leader's rows, Gyro's metadata included, and records the log index it applied.
 */
@Tag("slow")
class GroupLogTest {

    @TempDir
    Path dir;

    @Test
    void aStreamOfWritesThroughTheLeaderLeavesEveryReplicaEqual() throws Exception {
        int writers = 4;
        int orders = 100;
        GroupSpec spec = Groups.spec(1, 3, Duration.ofSeconds(10));
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try (ReplicatedGroup group = ReplicatedGroup.start(spec, Groups.databases(dir, 3), dir.resolve("logs"))) {
            group.awaitLeader(Groups.WAIT);
            List<Future<Long>> gsns = new ArrayList<>();
            for (long id = 1; id <= orders; id++) {
                long order = id;
                gsns.add(pool.submit(() -> group.submit(Groups.order(order))));
            }
            Set<Long> granted = new TreeSet<>();
            for (Future<Long> gsn : gsns) granted.add(gsn.get());
            assertThat(granted).as("each order its own gsn, one after the other").hasSize(orders)
                    .containsExactlyElementsOf(LongStream.rangeClosed(1, orders).boxed().toList());

            GroupReplica leader = group.leader();
            long last = leader.lastLogIndex();
            long lastRequest = leader.lastRequestIndex();
            assertThat(group.awaitApplied(last, Groups.WAIT)).as("every replica applies the log up to %d", last).isTrue();
            var expected = Groups.contents(leader.database());
            assertThat(expected.get("orders")).hasSize(orders);
            assertThat(Groups.single(leader.database(), "SELECT n FROM totals")).isEqualTo(orders);
            assertThat(Groups.single(leader.database(), "SELECT last_gsn FROM gyro_state")).isEqualTo(orders);
            assertThat(expected.get("gyro_outbox")).hasSize(orders);
            for (int i = 0; i < 3; i++) {
                GroupReplica r = group.replica(i);
                assertThat(Groups.contents(r.database())).as("replica %d", i).isEqualTo(expected);
                assertThat(Groups.single(r.database(), "SELECT applied_index FROM gyro_replica"))
                        .as("replica %d records the index of the log's last request", i).isEqualTo(lastRequest);
                assertThat(r.storedIndex()).isEqualTo(lastRequest);
                assertThat(r.appliedIndex()).as("replica %d applied its whole log", i).isGreaterThanOrEqualTo(last);
                assertThat(r.staleEntries()).isZero();
                assertThat(r.entriesApplied()).as("replica %d applied each entry once", i).isEqualTo(orders);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aTokensUpdatesAndTheTokenReachEveryReplica() throws Exception {
        GroupSpec spec = Groups.spec(6, 3, Duration.ofSeconds(10));
        try (ReplicatedGroup group = ReplicatedGroup.start(spec, Groups.databases(dir, 3), dir.resolve("logs"))) {
            group.submit(Groups.order(1)); // gsn 1, in the outbox of ring position 0, which holds the token
            RowChange order500 = new RowChange("orders", RowChange.Kind.UPSERT, List.of("id", "amount"),
                    List.of(Value.of(500L), Value.of(5000L)), List.of("id"));
            StateUpdate fromPosition1 = new StateUpdate(2, 1, List.of(order500));
            // Action.ApplyUpdates: the other position's update and the token as held, in one transaction.
            group.submit(tx -> {
                tx.applyUpdates(List.of(fromPosition1));
                MetadataStore.recordReceived(tx.metadata(), new Token(3, List.of()), 2);
                return null;
            });
            GroupReplica leader = group.leader();
            assertThat(group.awaitApplied(leader.lastLogIndex(), Groups.WAIT)).isTrue();
            var expected = Groups.contents(leader.database());
            assertThat(Groups.single(leader.database(), "SELECT amount FROM orders WHERE id = 500")).isEqualTo(5000);
            assertThat(expected.get("gyro_outbox")).as("the outbox emptied by the token's return").isEmpty();
            for (int i = 0; i < 3; i++) {
                Database db = group.replica(i).database();
                assertThat(Groups.contents(db)).as("replica %d", i).isEqualTo(expected);
                DurableState state = db.inTransaction(true, c -> MetadataStore.load(c, 0));
                assertThat(state.lastGsn()).isEqualTo(2);
                assertThat(state.tokenStatus()).isEqualTo(DurableState.TokenStatus.HELD);
                assertThat(state.token().hop()).isEqualTo(3);
            }
        }
    }

    @Test
    void aWholeGroupRestartedResumesFromItsDatabasesAndLogs() throws Exception {
        GroupSpec spec = Groups.spec(9, 3, Duration.ofSeconds(10));
        List<String> databases = Groups.databases(dir, 3);
        try (ReplicatedGroup group = ReplicatedGroup.start(spec, databases, dir.resolve("logs"))) {
            for (long id = 1; id <= 10; id++) group.submit(Groups.order(id));
            assertThat(group.awaitApplied(group.leader().lastLogIndex(), Groups.WAIT)).isTrue();
        }
        try (ReplicatedGroup group = ReplicatedGroup.start(spec, databases, dir.resolve("logs"))) {
            for (long id = 11; id <= 20; id++) assertThat(group.submit(Groups.order(id))).isEqualTo(id);
            GroupReplica leader = group.leader();
            assertThat(group.awaitApplied(leader.lastLogIndex(), Groups.WAIT)).isTrue();
            var expected = Groups.contents(leader.database());
            assertThat(Groups.single(leader.database(), "SELECT n FROM totals")).isEqualTo(20);
            for (int i = 0; i < 3; i++) {
                GroupReplica r = group.replica(i);
                assertThat(Groups.contents(r.database())).as("replica %d", i).isEqualTo(expected);
                assertThat(r.redeliveriesSkipped()).as("replica %d resumes after what its database held", i).isZero();
                assertThat(r.entriesApplied()).as("replica %d applies only the new entries", i).isEqualTo(10);
            }
        }
    }

    @Test
    void aGroupOfOneCommitsAlone() throws Exception {
        GroupSpec spec = Groups.spec(0, 1, Duration.ofSeconds(10));
        try (ReplicatedGroup group = ReplicatedGroup.start(spec, Groups.databases(dir, 1), dir.resolve("logs"))) {
            for (long id = 1; id <= 5; id++) assertThat(group.submit(Groups.order(id))).isEqualTo(id);
            GroupReplica only = group.replica(0);
            assertThat(Groups.single(only.database(), "SELECT n FROM totals")).isEqualTo(5);
            assertThat(only.storedIndex()).isEqualTo(only.lastRequestIndex());
            assertThat(Groups.single(only.database(), "SELECT applied_index FROM gyro_replica"))
                    .isEqualTo(only.lastRequestIndex());
        }
    }

    @Test
    void aFailingRequestChangesNothingAndAppendsNothing() throws Exception {
        GroupSpec spec = Groups.spec(2, 3, Duration.ofSeconds(10));
        try (ReplicatedGroup group = ReplicatedGroup.start(spec, Groups.databases(dir, 3), dir.resolve("logs"))) {
            group.submit(Groups.order(1));
            GroupReplica leader = group.leader();
            long before = leader.lastRequestIndex();
            assertThatThrownBy(() -> group.submit(Groups.order(1))).isInstanceOf(SQLException.class)
                    .hasMessageContaining("UNIQUE");
            assertThat(leader.lastRequestIndex()).as("no entry appended").isEqualTo(before);
            assertThat(Groups.single(leader.database(), "SELECT n FROM totals")).isEqualTo(1);
        }
    }

    @Test
    void aReplicaIsRefusedTheDatabaseOfAnother() throws Exception {
        GroupSpec spec = Groups.spec(3, 1, Duration.ofSeconds(10));
        List<String> dbs = Groups.databases(dir, 1);
        try (ReplicatedGroup group = ReplicatedGroup.start(spec, dbs, dir.resolve("logs"))) {
            group.submit(Groups.order(1));
        }
        GroupSpec other = Groups.spec(4, 1, Duration.ofSeconds(10));
        assertThatThrownBy(() -> ReplicatedGroup.start(other, dbs, dir.resolve("other-logs")))
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("belongs to replica 0 of " + spec.name())
                .hasMessageContaining("not to replica 0 of " + other.name());
    }
}
