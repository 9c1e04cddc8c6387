package dev.gyro.replication;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A group that lost its majority (docs/decisions/10-errors.md and docs/decisions/22-group-log.md): a write is answered
 * within a bounded time with an error naming the group and how many replicas the leader reaches, its effect is not in
 * the leader's database, and the group carries on when its replicas return, every replica equal.
 */
@Tag("slow")
class LostMajorityTest {

    @TempDir
    Path dir;

    @Test
    void aWriteWithoutAMajorityIsRefusedInBoundedTimeAndNotKept() throws Exception {
        Duration commitTimeout = Duration.ofSeconds(2);
        GroupSpec spec = Groups.spec(7, 3, commitTimeout);
        try (ReplicatedGroup group = ReplicatedGroup.start(spec, Groups.databases(dir, 3), dir.resolve("logs"))) {
            group.awaitLeader(Groups.WAIT);
            submitWhole(group, 1);
            GroupReplica leader = group.awaitLeader(Groups.WAIT);
            for (int i = 0; i < 3; i++) if (i != leader.replica()) group.stop(i);

            long start = System.nanoTime();
            GroupUnavailableException e = catchThrowableOfType(GroupUnavailableException.class,
                    () -> group.submit(Groups.order(2)));
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat((Object) e).as("refused").isNotNull();
            assertThat(e.getMessage()).contains(spec.name()).contains("reached 1 of its 3 replicas");
            assertThat(e.reached()).isEqualTo(1);
            assertThat(took).as("answered about when the commit timeout ran out")
                    .isLessThan(commitTimeout.plus(Duration.ofSeconds(1)));
            assertThat(Groups.single(leader.database(), "SELECT COUNT(*) FROM orders WHERE id = 2"))
                    .as("the uncommitted order is not in the leader's database").isZero();
            assertThat(Groups.single(leader.database(), "SELECT n FROM totals")).isEqualTo(1);
            // Nor does it read: its lease (0.9 of the shortest election timeout after a majority last answered) ran out
            // long before the write's commit timeout, and the read index it falls back to needs a majority.
            assertThatThrownBy(leader::beforeRead).isInstanceOf(GroupUnavailableException.class)
                    .hasMessageContaining("cannot prove it still leads");

            for (int i = 0; i < 3; i++) if (group.replica(i) == null) group.restart(i);
            // The group is whole again once the returned replicas hold the leader's log (order 2's entry included,
            // which a majority may now commit); then it takes requests as before.
            GroupReplica back = group.awaitLeader(Groups.WAIT);
            assertThat(group.awaitApplied(back.lastRequestIndex(), Groups.WAIT)).isTrue();
            submitWhole(group, 3);
            GroupReplica now = group.awaitLeader(Groups.WAIT);
            assertThat(group.awaitApplied(now.lastLogIndex(), Groups.WAIT)).isTrue();
            var expected = Groups.contents(now.database());
            for (int i = 0; i < 3; i++)
                assertThat(Groups.contents(group.replica(i).database())).as("replica %d", i).isEqualTo(expected);
            // Order 2's entry may have committed once the majority was back: then it is everywhere, else nowhere.
            assertThat(Groups.single(now.database(), "SELECT n FROM totals"))
                    .isEqualTo(Groups.single(now.database(), "SELECT COUNT(*) FROM orders"));
            assertThat(Groups.single(now.database(), "SELECT COUNT(*) FROM orders WHERE id IN (1, 3)")).isEqualTo(2);
        }
    }

    /**
     * Order {@code id} written while every replica runs. On a loaded machine its commit may outlast the short commit
     * timeout this test needs: then, every replica reached, it commits later, which is waited for.
     */
    static void submitWhole(ReplicatedGroup group, long id) throws Exception {
        try {
            group.submit(Groups.order(id));
        } catch (GroupUnavailableException slow) {
            assertThat(slow.reached()).as("replicas the leader reached: " + slow.getMessage()).isEqualTo(3);
            GroupReplica leader = group.awaitLeader(Groups.WAIT);
            assertThat(group.awaitApplied(leader.lastLogIndex(), Groups.WAIT)).isTrue();
            assertThat(Groups.single(group.awaitLeader(Groups.WAIT).database(),
                    "SELECT COUNT(*) FROM orders WHERE id = " + id)).as("order %d, committed late", id).isEqualTo(1);
        }
    }
}
