package dev.gyro.replication;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The log does not grow forever (docs/decisions/45-database-as-snapshot.md): a group of three on real databases purges
 * its log behind its databases' index; a stopped replica pins the log where it stopped, so that it catches up from the
 * log when it is back, after which the log is purged past that point; a replica restarted on a purged log resumes after
 * its database's index. Small segments and frequent snapshots make a few hundred writes enough.
 */
class LogPurgeTest {

    @TempDir
    Path dir;

    static final LogRetention SMALL = new LogRetention(40, 64 << 10, 100_000);

    static long bytes(Path logs) throws Exception {
        try (Stream<Path> files = Files.walk(logs)) {
            return files.filter(Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum();
        }
    }

    static void write(ReplicatedGroup group, long from, long to) throws Exception {
        for (long id = from; id <= to; id++) group.submit(Groups.order(id));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"sqlite", "postgres", "mariadb"})
    void aGroupsLogIsPurgedBehindItsDatabasesAndAStoppedReplicaPinsIt(String backend) throws Exception {
        GroupSpec spec = Groups.spec(4, 3, Duration.ofSeconds(10)).withRetention(SMALL);
        List<String> databases = Groups.databases(backend, dir, 3);
        Path logs = dir.resolve("logs");
        try (ReplicatedGroup group = ReplicatedGroup.start(spec, databases, logs)) {
            group.awaitLeader(Groups.WAIT);
            write(group, 1, 400);
            GroupReplica leader = group.leader();
            assertThat(group.awaitApplied(leader.lastLogIndex(), Groups.WAIT)).isTrue();
            write(group, 401, 440); // a snapshot after every replica's commit index is known everywhere
            assertThat(group.awaitApplied(leader.lastLogIndex(), Groups.WAIT)).isTrue();
            long written = bytes(logs);
            for (int i = 0; i < 3; i++) {
                GroupReplica r = group.replica(i);
                System.out.printf("%s replica %d: log %d..%d, %d snapshots%n", backend, i, r.logStartIndex(),
                        r.lastLogIndex(), r.snapshots());
                assertThat(r.snapshots()).as("replica %d took snapshots", i).isPositive();
                assertThat(r.logStartIndex()).as("replica %d purged its log", i).isGreaterThan(1);
            }

            int stopped = (leader.replica() + 1) % 3;
            long pinnedAt = group.replica(stopped).lastLogIndex();
            group.stop(stopped);
            write(group, 441, 840);
            assertThat(leader.logStartIndex()).as("the leader keeps the log the stopped replica needs")
                    .isLessThanOrEqualTo(pinnedAt + 1);

            GroupReplica back = group.restart(stopped); // on its purged log: it resumes after its database's index
            assertThat(group.awaitApplied(leader.lastLogIndex(), Groups.WAIT)).isTrue();
            assertThat(back.redeliveriesSkipped()).isZero();
            write(group, 841, 1240);
            assertThat(group.awaitApplied(leader.lastLogIndex(), Groups.WAIT)).isTrue();
            write(group, 1241, 1280);
            assertThat(group.awaitApplied(leader.lastLogIndex(), Groups.WAIT)).isTrue();
            for (int i = 0; i < 3; i++)
                assertThat(group.replica(i).logStartIndex()).as("replica %d purged past the pinned index", i)
                        .isGreaterThan(pinnedAt + 1);
            long after = bytes(logs);
            System.out.printf("%s: the logs held %d bytes after 440 writes, %d after 1,280%n", backend, written, after);
            assertThat(after).as("three times the writes, not three times the log").isLessThan(2 * written);

            var expected = Groups.contents(leader.database());
            for (int i = 0; i < 3; i++)
                assertThat(Groups.contents(group.replica(i).database())).as("replica %d", i).isEqualTo(expected);
            assertThat(Groups.single(back.database(), "SELECT COUNT(*) FROM orders")).isEqualTo(1280);
        }
    }

    /**
     * A replica down longer than its group keeps the log for it ({@link LogRetention#maxBehind()}): the log is purged
     * past where it stopped, and when it returns its leader offers it only a snapshot; it copies the leader's database
     * into its own, in one transaction, and takes the log after the copy's index.
     */
    /**
     * 50 writes every replica applies, then a follower stopped and 550 writes more, past what a retention of 80
     * entries keeps for it: the leader's log is purged past where it stopped. Returns the stopped replica.
     */
    static int stopAFollowerAndPurgePastIt(ReplicatedGroup group) throws Exception {
        write(group, 1, 50);
        GroupReplica leader = group.leader();
        assertThat(group.awaitApplied(leader.lastLogIndex(), Groups.WAIT)).isTrue();
        int stopped = (leader.replica() + 1) % 3;
        long stoppedAt = group.replica(stopped).lastLogIndex();
        group.stop(stopped);
        write(group, 51, 600);
        assertThat(leader.logStartIndex()).as("purged past the stopped replica, " + (600 - 50) + " writes behind")
                .isGreaterThan(stoppedAt + 1);
        return stopped;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"sqlite", "postgres", "mariadb"})
    void aReplicaDownLongerThanTheLogIsKeptForIsRebuiltFromACopy(String backend) throws Exception {
        GroupSpec spec = Groups.spec(6, 3, Duration.ofSeconds(10)).withRetention(new LogRetention(40, 64 << 10, 80));
        List<String> databases = Groups.databases(backend, dir, 3);
        try (ReplicatedGroup group = ReplicatedGroup.start(spec, databases, dir.resolve("logs"))) {
            group.awaitLeader(Groups.WAIT);
            GroupReplica leader = group.leader();
            int stopped = stopAFollowerAndPurgePastIt(group);

            GroupReplica back = group.restart(stopped);
            write(group, 601, 640);
            assertThat(group.awaitApplied(leader.lastLogIndex(), Groups.WAIT))
                    .as("the returned replica is at " + back.storedIndex()).isTrue();
            assertThat(back.rebuilds()).as("it copied the leader's database").isOne();
            assertThat(Groups.contents(back.database())).isEqualTo(Groups.contents(leader.database()));
            assertThat(Groups.single(back.database(), "SELECT COUNT(*) FROM orders")).isEqualTo(640);
        }
    }

    /**
     * The same replica where no live replica's database can be reached (a replica run as a process of its own): it
     * stops rather than serve a database behind its group's log, and the group goes on without it.
     */
    @org.junit.jupiter.api.Test
    void aReplicaThatFellBehindAndCannotCopyStops() throws Exception {
        GroupSpec spec = Groups.spec(7, 3, Duration.ofSeconds(10)).withRetention(new LogRetention(40, 64 << 10, 80));
        List<String> databases = Groups.databases(dir, 3);
        Path logs = dir.resolve("logs");
        try (ReplicatedGroup group = ReplicatedGroup.start(spec, databases, logs)) {
            group.awaitLeader(Groups.WAIT);
            int stopped = stopAFollowerAndPurgePastIt(group);

            GroupSignal signal = new GroupSignal();
            try (GroupReplica alone = GroupReplica.start(spec, stopped, databases.get(stopped),
                    logs.resolve("replica-" + stopped), signal)) {
                long deadline = System.nanoTime() + Groups.WAIT.toNanos();
                // the leader's heartbeats tell it how far behind it is; its state is the event: it stops itself
                while (alone.term() != -1 && System.nanoTime() < deadline) Thread.sleep(20);
                assertThat(alone.term()).as("the replica stopped itself").isEqualTo(-1);
            }
            try (var db = dev.gyro.runtime.db.Database.open(dev.gyro.runtime.db.Dialect.forTarget(databases.get(stopped)),
                    databases.get(stopped))) {
                assertThat(Groups.single(db, "SELECT COUNT(*) FROM orders")).as("nothing applied past the gap")
                        .isEqualTo(50);
            }
            write(group, 601, 610);
            assertThat(Groups.single(group.leader().database(), "SELECT COUNT(*) FROM orders")).isEqualTo(610);
        }
    }
}
