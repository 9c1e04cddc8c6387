package dev.gyro.replication;

import dev.gyro.runtime.db.Database;
import dev.gyro.runtime.db.Dialect;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import org.junit.jupiter.api.Tag;

/**
 * On each backend, a group's leader killed mid-stream (its Ratis server closed at once): Ratis elects another, requests go on, nothing
 * acknowledged is lost, nothing is applied twice, and the killed replica restarted on its database and log catches up
 * (docs/decisions/22-group-log.md).
 */
@Tag("servers")
class LeaderFailoverTest {

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgres", "mariadb"})
    void aKilledLeaderIsReplacedAndNothingAcknowledgedIsLost(String backend) throws Exception {
        int orders = 120;
        int killAfter = 40;
        GroupSpec spec = Groups.spec(5, 3, Duration.ofSeconds(10));
        List<String> databases = Groups.databases(backend, dir, 3);
        try (ReplicatedGroup group = ReplicatedGroup.start(spec, databases, dir.resolve("logs"))) {
            group.awaitLeader(Groups.WAIT);
            Set<Long> acknowledged = ConcurrentHashMap.newKeySet();
            List<GroupUnavailableException> refused = new ArrayList<>();
            AtomicInteger acknowledgedAfterKill = new AtomicInteger();
            AtomicBoolean killed = new AtomicBoolean();
            CountDownLatch killPoint = new CountDownLatch(killAfter);
            AtomicReference<Throwable> writerFailed = new AtomicReference<>();
            Thread writer = new Thread(() -> {
                try {
                    for (long id = 1; id <= orders; id++) {
                        try {
                            group.submit(Groups.order(id));
                            acknowledged.add(id);
                            if (killed.get()) acknowledgedAfterKill.incrementAndGet();
                        } catch (GroupUnavailableException e) {
                            synchronized (refused) {
                                refused.add(e);
                            }
                        }
                        killPoint.countDown();
                    }
                } catch (Throwable t) {
                    writerFailed.set(t);
                }
            }, "writer");
            writer.start();
            killPoint.await();
            GroupReplica old = group.leader();
            assertThat(old).as("a leader while requests flow").isNotNull();
            int victim = old.replica();
            killed.set(true);
            group.stop(victim);
            writer.join();
            assertThat(writerFailed.get()).isNull();
            assertThat(acknowledgedAfterKill.get()).as("requests acknowledged by the new leader").isPositive();
            GroupReplica leader = group.awaitLeader(Groups.WAIT);
            assertThat(leader.replica()).isNotEqualTo(victim);
            for (GroupUnavailableException e : refused) assertThat(e.getMessage()).contains(spec.name());

            long storedAtKill;
            try (Database db = Database.open(Dialect.forTarget(databases.get(victim)), databases.get(victim))) {
                storedAtKill = Groups.single(db, "SELECT applied_index FROM gyro_replica");
            }
            GroupReplica restarted = group.restart(victim);
            long last = leader.lastLogIndex();
            assertThat(group.awaitApplied(last, Groups.WAIT)).as("every replica applies the log up to %d", last).isTrue();

            var expected = Groups.contents(leader.database());
            List<Long> present = new ArrayList<>();
            for (var row : expected.get("orders")) present.add((Long) row.get(0).toJava());
            assertThat(present).containsAll(acknowledged);
            assertThat(Groups.single(leader.database(), "SELECT n FROM totals")).isEqualTo(present.size());
            assertThat(Groups.single(leader.database(), "SELECT total FROM totals"))
                    .isEqualTo(Groups.single(leader.database(), "SELECT SUM(amount) FROM orders"));
            assertThat(Groups.single(leader.database(), "SELECT last_gsn FROM gyro_state")).isEqualTo(present.size());
            for (int i = 0; i < 3; i++)
                assertThat(Groups.contents(group.replica(i).database())).as("replica %d", i).isEqualTo(expected);

            long lastRequest = leader.lastRequestIndex();
            assertThat(restarted.storedIndex()).isEqualTo(lastRequest);
            assertThat(restarted.entriesApplied() + restarted.staleEntries())
                    .as("the restarted replica applies each entry after %d once", storedAtKill)
                    .isEqualTo(restarted.requestEntries(storedAtKill, lastRequest));
            assertThat(restarted.redeliveriesSkipped())
                    .as("it resumes after the entries its database held before the kill: none delivered again")
                    .isZero();
        }
    }
}
