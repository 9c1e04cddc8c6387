package dev.gyro.replication;

import dev.gyro.servers.FreePorts;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Losing a machine for good (docs/decisions/47-new-member.md), on each backend: a follower's process, database and
 * log are gone; a new member on another log address, with a new database and log, takes its place through a
 * membership change while a writer goes on; it catches up (from a copy: the group's log was purged behind it), holds
 * what the leader holds, and counts in the group's majority: with the old leader killed too, the two that are left
 * elect a leader and commit, and nothing acknowledged is lost.
 */
@Tag("servers")
class NewMemberTest {

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"sqlite", "postgres", "mariadb"})
    void aNewMemberOnAnotherAddressTakesALostMembersPlaceWhileTheGroupServes(String backend) throws Exception {
        GroupSpec spec = Groups.spec(8, 3, Duration.ofSeconds(10)).withRetention(LogPurgeTest.SMALL);
        List<String> databases = Groups.databases(backend, dir, 4); // the fourth is the new member's, made empty
        try (ReplicatedGroup group = ReplicatedGroup.start(spec, databases.subList(0, 3), dir.resolve("logs"))) {
            group.awaitLeader(Groups.WAIT);
            LogPurgeTest.write(group, 1, 200);
            Set<Long> acknowledged = ConcurrentHashMap.newKeySet();
            AtomicLong next = new AtomicLong(201);
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> failed = new AtomicReference<>();
            Thread writer = new Thread(() -> {
                while (!stop.get()) {
                    long id = next.getAndIncrement();
                    try {
                        group.submit(Groups.order(id));
                        acknowledged.add(id);
                    } catch (GroupUnavailableException e) {
                        // not acknowledged: the check below asks only for what was
                    } catch (Throwable t) {
                        failed.set(t);
                        return;
                    }
                }
            }, "writer");
            writer.start();

            GroupReplica leader = group.awaitLeader(Groups.WAIT);
            int lost = (leader.replica() + 1) % 3;
            group.stop(lost); // its machine is gone: its process, and with it its database and log
            deleteTree(dir.resolve("logs").resolve("replica-" + lost));
            InetSocketAddress address = new InetSocketAddress("127.0.0.1", FreePorts.take());
            long before = acknowledged.size();
            GroupReplica joined = group.replace(lost, address, databases.get(3), dir.resolve("new-member-log"),
                    Groups.WAIT);
            long during = acknowledged.size() - before;
            awaitMore(acknowledged, 20, failed);
            stop.set(true);
            writer.join();
            assertThat(failed.get()).as("the writer").isNull();
            assertThat(during).as("writes acknowledged while the member was replaced").isPositive();

            GroupReplica now = group.awaitLeader(Groups.WAIT);
            String expected = address.getHostString() + ":" + address.getPort();
            assertThat(now.memberAddress(lost)).as("the group's configuration names the new member").isEqualTo(expected);
            assertThat(group.awaitApplied(now.lastLogIndex(), Groups.WAIT)).isTrue();
            assertThat(joined.rebuilds()).as("the new member started from a copy: the log was purged").isPositive();
            assertThat(Groups.contents(joined.database())).isEqualTo(Groups.contents(now.database()));

            // The new member is one of the majority: with the leader killed as well, it and the last original member
            // elect a leader and commit.
            int old = now.replica() == lost ? (lost + 1) % 3 : now.replica();
            group.stop(old);
            GroupReplica after = group.awaitLeader(Groups.WAIT);
            assertThat(after.replica()).isNotEqualTo(old);
            long last = next.getAndIncrement();
            group.submit(Groups.order(last));
            acknowledged.add(last);
            assertThat(group.awaitApplied(after.lastLogIndex(), Groups.WAIT)).isTrue();
            for (GroupReplica r : List.of(group.replica(lost), group.replica(3 - lost - old))) {
                Set<Long> held = Set.copyOf(Groups.dump(r.database(), "SELECT id FROM orders").stream()
                        .map(row -> ((dev.gyro.protocol.Value.Int) row.get(0)).value()).toList());
                assertThat(held).as("replica %d holds every acknowledged order", r.replica()).containsAll(acknowledged);
            }
        }
    }

    /** A new member's copy is of a replica of its own group: another database is refused, and no file is left. */
    @org.junit.jupiter.api.Test
    void aCopyOfADatabaseThatIsNoReplicaOfTheGroupIsRefusedAndLeavesNoFile() throws Exception {
        GroupSpec spec = Groups.spec(9, 3, Duration.ofSeconds(10));
        String plain = Groups.databases(dir, 1).get(0); // the schema, but no replica's stamp
        Path target = dir.resolve("new-member.db");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Snapshot.copyOf(plain, spec, target.toString(), 2,
                        c -> null, s -> {}))
                .isInstanceOf(java.sql.SQLException.class).hasMessageContaining("no replica's database");
        assertThat(target).doesNotExist();
        assertThat(Snapshot.isReplica(target.toString(), spec, 2)).isFalse();
        Path missing = dir.resolve("missing.db");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Snapshot.copyOf(missing.toString(), spec,
                target.toString(), 2, c -> null, s -> {})).hasMessageContaining("no such file");
        assertThat(missing).as("nothing made at the source's path").doesNotExist();
    }

    private static void awaitMore(Set<Long> acknowledged, int more, AtomicReference<Throwable> failed)
            throws InterruptedException {
        long target = acknowledged.size() + more;
        long deadline = System.nanoTime() + Groups.WAIT.toNanos();
        while (acknowledged.size() < target && failed.get() == null && System.nanoTime() < deadline)
            Thread.sleep(5); // waits for the writer's acknowledgements, bounded for a failing run
        assertThat(acknowledged.size()).as("writes acknowledged after the change").isGreaterThanOrEqualTo((int) target);
    }

    private static void deleteTree(Path root) throws Exception {
        if (!Files.exists(root)) return;
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
        }
    }
}
