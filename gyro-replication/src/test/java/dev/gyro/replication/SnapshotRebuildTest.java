package dev.gyro.replication;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A follower whose database is lost while it is down is rebuilt from a copy of the leader's database at a log index
 * ({@link Snapshot}) and its own group log: it applies exactly the entries after the copy's index, and ends equal to the
 * others (docs/decisions/24-ring-on-groups.md).
 */
class SnapshotRebuildTest {

    @TempDir
    Path dir;

    @Test
    void aFollowerWithoutItsDatabaseIsRebuiltFromASnapshot() throws Exception {
        GroupSpec spec = Groups.spec(3, 3, Duration.ofSeconds(10));
        List<String> databases = Groups.databases(dir, 3);
        try (ReplicatedGroup group = ReplicatedGroup.start(spec, databases, dir.resolve("logs"))) {
            group.awaitLeader(Groups.WAIT);
            for (long id = 1; id <= 20; id++) group.submit(Groups.order(id));
            GroupReplica leader = group.leader();
            int lost = (leader.replica() + 1) % 3;
            group.stop(lost);
            for (long id = 21; id <= 30; id++) group.submit(Groups.order(id)); // it misses these
            Path db = Path.of(databases.get(lost));
            for (String suffix : new String[] {"", "-wal", "-shm"}) Files.deleteIfExists(Path.of(db + suffix));
            long copied = Snapshot.copy(group.leader().database(), spec, group.leader().replica(), db, lost);
            assertThat(copied).as("the copy holds the log up to its index").isPositive();
            GroupReplica rebuilt = group.restart(lost);
            assertThat(rebuilt.storedIndex()).isEqualTo(copied);
            for (long id = 31; id <= 40; id++) group.submit(Groups.order(id)); // and these reach it through the log
            long last = group.leader().lastRequestIndex();
            assertThat(group.awaitApplied(last, Groups.WAIT)).as("every replica applied the log up to " + last
                    + "; the rebuilt one is at " + rebuilt.storedIndex() + " (log " + rebuilt.lastLogIndex() + ")").isTrue();
            var expected = Groups.contents(group.leader().database());
            assertThat(Groups.contents(rebuilt.database())).isEqualTo(expected);
            assertThat(Groups.single(rebuilt.database(), "SELECT COUNT(*) FROM orders")).isEqualTo(40);
        }
    }

    /**
     * On each backend: a follower whose database fell behind (it missed writes, and its database holds stale rows) is
     * rebuilt from a copy of the leader's, made through JDBC on PostgreSQL and MariaDB, while the leader keeps serving;
     * it then takes the log after the copy's index.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"sqlite", "postgres", "mariadb"})
    void aFollowerIsRebuiltFromACopyOfItsLeadersDatabase(String backend) throws Exception {
        GroupSpec spec = Groups.spec(5, 3, Duration.ofSeconds(10));
        List<String> databases = Groups.databases(backend, dir, 3);
        try (ReplicatedGroup group = ReplicatedGroup.start(spec, databases, dir.resolve("logs"))) {
            group.awaitLeader(Groups.WAIT);
            for (long id = 1; id <= 20; id++) group.submit(Groups.order(id));
            GroupReplica leader = group.leader();
            int lost = (leader.replica() + 1) % 3;
            assertThat(group.awaitApplied(leader.lastLogIndex(), Groups.WAIT)).isTrue();
            group.stop(lost);
            for (long id = 21; id <= 30; id++) group.submit(Groups.order(id)); // it misses these
            List<String> tables = new java.util.ArrayList<>();
            long copied = Snapshot.copy(group.leader().database(), spec, group.leader().replica(), databases.get(lost),
                    lost, Groups::schema, tables::add);
            assertThat(copied).as("the copy holds the log up to its index").isGreaterThanOrEqualTo(
                    group.leader().storedIndex() - 1);
            if (!backend.equals("sqlite")) assertThat(tables).anyMatch(t -> t.startsWith("copied table orders: 30 rows"));
            GroupReplica rebuilt = group.restart(lost);
            assertThat(rebuilt.storedIndex()).isEqualTo(copied);
            for (long id = 31; id <= 40; id++) group.submit(Groups.order(id));
            long last = group.leader().lastRequestIndex();
            assertThat(group.awaitApplied(last, Groups.WAIT)).as("the rebuilt replica is at " + rebuilt.storedIndex())
                    .isTrue();
            assertThat(Groups.contents(rebuilt.database())).isEqualTo(Groups.contents(group.leader().database()));
            assertThat(Groups.single(rebuilt.database(), "SELECT COUNT(*) FROM orders")).isEqualTo(40);
        }
    }
}
