package dev.gyro.replication;

import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.Value;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An entry computed on a database that a later entry had overtaken (its basis is not the last request entry applied)
 * changes no replica, and every replica records it alike (docs/decisions/22-group-log.md): row images are absolute, so
 * applying it would undo the entry it did not see.
 */
class StaleEntryTest {

    @TempDir
    Path dir;

    @Test
    void anEntryOnAnOvertakenBasisIsSkippedByEveryReplica() throws Exception {
        GroupSpec spec = Groups.spec(8, 3, Duration.ofSeconds(10));
        try (ReplicatedGroup group = ReplicatedGroup.start(spec, Groups.databases(dir, 3), dir.resolve("logs"))) {
            group.awaitLeader(Groups.WAIT);
            group.submit(Groups.order(1));
            GroupReplica leader = group.leader();
            long basisBefore = 0; // the database before order 1: what a leader that missed it would have seen
            RowChange totalsWithoutOrder1 = new RowChange("totals", RowChange.Kind.UPSERT, List.of("id", "n", "total"),
                    List.of(Value.of(1L), Value.of(1L), Value.of(990L)), List.of("id"));
            RowChange order99 = new RowChange("orders", RowChange.Kind.UPSERT, List.of("id", "amount"),
                    List.of(Value.of(99L), Value.of(990L)), List.of("id"));
            GroupEntry stale = new GroupEntry(basisBefore, 42, 1, leader.replica(),
                    List.of(order99, totalsWithoutOrder1));
            assertThat(leader.append(stale).get().isSuccess()).isTrue();
            long staleIndex = leader.lastRequestIndex();
            assertThat(group.awaitApplied(leader.lastLogIndex(), Groups.WAIT)).isTrue();

            for (int i = 0; i < 3; i++) {
                GroupReplica r = group.replica(i);
                assertThat(Groups.single(r.database(), "SELECT COUNT(*) FROM orders WHERE id = 99")).isZero();
                assertThat(Groups.single(r.database(), "SELECT total FROM totals")).isEqualTo(10);
                assertThat(r.staleEntries()).as("replica %d", i).isEqualTo(1);
                assertThat(r.storedIndex()).as("replica %d records the stale entry as applied", i)
                        .isEqualTo(staleIndex);
            }

            group.submit(Groups.order(2)); // computed on the last applied request entry: applied everywhere
            assertThat(group.awaitApplied(leader.lastLogIndex(), Groups.WAIT)).isTrue();
            var expected = Groups.contents(leader.database());
            assertThat(Groups.single(leader.database(), "SELECT total FROM totals")).isEqualTo(30);
            for (int i = 0; i < 3; i++)
                assertThat(Groups.contents(group.replica(i).database())).as("replica %d", i).isEqualTo(expected);
        }
    }
}
