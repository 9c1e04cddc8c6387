package dev.gyro.replication;

import dev.gyro.apps.store.OnlineStore;
import dev.gyro.client.GyroClient;
import dev.gyro.runtime.GyroInstance;
import dev.gyro.runtime.InstanceConfig;
import dev.gyro.runtime.db.Dialect;
import dev.gyro.protocol.Value;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A replica that follows its group prepares the instance it runs once it leads: threads, metrics and peer links built
 * ahead, so that a failover only recovers the belt from the database (docs/decisions/41-failover-on-a-loaded-machine.md).
 * Every follower holds one; after its leader is killed, the new leader runs the very instance it prepared and serves;
 * a replica that stops closes what it prepared.
 */
class PreparedInstanceTest {

    static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @Test
    void theNewLeaderRunsTheInstanceItPreparedWhileFollowing() throws Exception {
        List<List<String>> databases = new ArrayList<>();
        for (int p = 0; p < 2; p++) {
            List<String> group = new ArrayList<>();
            for (int r = 0; r < 3; r++) {
                String target = dir.resolve("g" + p + "r" + r + ".db").toString();
                try (Connection c = DriverManager.getConnection(Dialect.forTarget(target).jdbcUrl(target))) {
                    c.setAutoCommit(false);
                    OnlineStore store = new OnlineStore();
                    store.createSchema(c);
                    store.load(c, 1, 7);
                    c.commit();
                }
                group.add(target);
            }
            databases.add(group);
        }
        try (ReplicatedRing ring = ReplicatedRing.start(databases, dir.resolve("logs"), "prepared-test",
                GroupTimeouts.DEFAULT,
                (p, addresses) -> InstanceConfig.of(p, addresses, databases.get(p).get(0), new OnlineStore()))) {
            assertThat(ring.awaitLeaders(WAIT)).as("every group elected a leader running its instance").isTrue();
            InstanceReplica leader = ring.leader(0);
            int killed = leader.group().replica();
            List<InstanceReplica> followers = new ArrayList<>();
            for (int r = 0; r < 3; r++) {
                InstanceReplica x = ring.replica(0, r);
                if (x == leader) continue;
                assertThat(x.awaitPrepared(WAIT)).as("follower %s prepared its instance", x).isTrue();
                followers.add(x);
            }
            assertThat(leader.prepared()).as("a leader runs its instance and holds none prepared").isNull();

            List<GyroInstance> prepared = followers.stream().map(InstanceReplica::prepared).toList();
            ring.kill(0, killed);
            assertThat(ring.awaitLeaders(WAIT)).as("group 0 elected a new leader").isTrue();
            InstanceReplica next = ring.leader(0);
            assertThat(followers).contains(next);
            assertThat(next.instance()).as("the new leader runs the instance it prepared")
                    .isSameAs(prepared.get(followers.indexOf(next)));
            try (GyroClient client = GyroClient.connect(ring.addresses())) {
                long cart = 1;
                while (client.routing().decide("createCart", List.of(new Value.Int(cart)), 0).owner() != 0) cart++;
                assertThat(client.call("createCart", cart).ok()).as("the new leader serves").isTrue();
            }

            InstanceReplica other = followers.get(1 - followers.indexOf(next));
            GyroInstance otherPrepared = other.prepared();
            assertThat(otherPrepared).as("the follower that did not take over keeps its prepared instance").isNotNull();
            ring.kill(0, other.group().replica());
            assertThat(otherPrepared.stopped()).as("a stopped replica closed the instance it prepared").isTrue();
        }
    }
}
