package dev.gyro.cluster;

import dev.gyro.apps.store.OnlineStore;
import dev.gyro.check.ReplicaCheck;
import dev.gyro.client.GyroClient;
import dev.gyro.runtime.GyroInstance;
import dev.gyro.runtime.InstanceConfig;
import dev.gyro.wire.Reply;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * An instance serves only on the database that is its own and the ring's (docs/decisions/13-secure-by-default.md): the
 * same instance started twice on one database (SQLite, PostgreSQL, MariaDB) is refused, and so is an instance restarted
 * on a recreated database or on a backup the ring has moved past; the others carry on unchanged, and with the right
 * database back the ring goes on.
 */
@Tag("servers")
class RingAgreementTest {

    static final List<String> TABLES = List.of("ITEMS", "SHOPPING_CARTS", "ORDERS", "ORDER_LINES", "gyro_state");

    @Test
    void theSameInstanceTwiceOnOneSqliteDatabaseIsRefused(@TempDir Path dir) throws Exception {
        try (LocalCluster cluster = LocalCluster.create(dir, new OnlineStore(), 2, 1, 42, n -> {}).startAll()) {
            refusesASecondInstanceOnTheSameDatabase(cluster);
        }
    }

    @Test
    void theSameInstanceTwiceOnOnePostgresDatabaseIsRefused() throws Exception {
        refusesASecondInstanceOnAServersDatabase(Backend.POSTGRES);
    }

    @Test
    void theSameInstanceTwiceOnOneMariaDbDatabaseIsRefused() throws Exception {
        refusesASecondInstanceOnAServersDatabase(Backend.MARIADB);
    }

    private static void refusesASecondInstanceOnAServersDatabase(Backend backend) throws Exception {
        TestServers.require(backend);
        Path dir = TestServers.base().resolve("agreement-" + System.nanoTime());
        try (LocalCluster cluster = LocalCluster.create(backend, dir, new OnlineStore(), 1, 1, 42, n -> {}).startAll()) {
            refusesASecondInstanceOnTheSameDatabase(cluster);
        }
    }

    private static void refusesASecondInstanceOnTheSameDatabase(LocalCluster cluster) throws Exception {
        InstanceConfig again = InstanceConfig.of(0, cluster.addresses(), cluster.backend() == Backend.SQLITE
                ? cluster.databaseFile(0).toString() : cluster.jdbcUrl(0), new OnlineStore());
        assertThatThrownBy(() -> new GyroInstance(again).start())
                .hasMessageContaining("in use by another running Gyro instance")
                .hasMessageContaining("instance 0 does not start on it");
        try (GyroClient client = GyroClient.connect(cluster.addresses())) { // the first one still serves
            long cart = StoreClusterChecks.cartOwnedBy(client, 0, 1);
            assertThat(client.call("createCart", cart).ok()).isTrue();
        }
        cluster.stop(0); // its lock goes with it
        cluster.start(0);
        assertThat(cluster.instance(0).stopped()).isFalse();
    }

    @Test
    void anInstanceOnARecreatedDatabaseOrAnOldBackupIsRefusedAndTheRingCarriesOnWithTheRightOne(@TempDir Path dir)
            throws Exception {
        try (LocalCluster cluster = LocalCluster.create(dir, new OnlineStore(), 3, 1, 42, n -> {}).startAll();
             GyroClient client = GyroClient.connect(cluster.addresses())) {
            long cart = 1;
            cart = ordersFromEveryInstance(client, cart);
            assertThat(cluster.awaitQuiet(60_000)).isTrue();
            cluster.stop(1);
            Path backup = dir.resolve("backup");
            copyDatabase(cluster.databaseFile(1), backup);
            long backupGsn = cluster.instance(0).appliedGsn();
            cluster.start(1);
            cart = ordersFromEveryInstance(client, cart);
            assertThat(cluster.awaitQuiet(60_000)).isTrue();
            long ringGsn = cluster.instance(0).appliedGsn();
            assertThat(ringGsn).isGreaterThan(backupGsn);
            cluster.stop(1);
            Path own = dir.resolve("own");
            copyDatabase(cluster.databaseFile(1), own);
            List<String> before = digests(cluster, 0, 2);

            // (a) the backup: behind the ring
            copyDatabase(backup, cluster.databaseFile(1));
            assertThatThrownBy(() -> cluster.start(1)).hasMessageContaining("instance 1 refuses to serve")
                    .hasMessageContaining("database is at gsn " + backupGsn)
                    .hasMessageContaining("the ring at gsn " + ringGsn)
                    .hasMessageContaining("restored from a backup");
            // (b) a recreated, empty database
            deleteDatabase(cluster.databaseFile(1));
            assertThatThrownBy(() -> cluster.start(1)).hasMessageContaining("instance 1 refuses to serve")
                    .hasMessageContaining("database is at gsn 0 with no token hop (a fresh database)")
                    .hasMessageContaining("the ring at gsn " + ringGsn);

            assertThat(digests(cluster, 0, 2)).isEqualTo(before);
            assertThat(cluster.instance(0).stopped()).isFalse();
            assertThat(cluster.instance(2).stopped()).isFalse();

            // its own database back: the ring carries on
            copyDatabase(own, cluster.databaseFile(1));
            cluster.start(1);
            ordersFromEveryInstance(client, cart);
            assertThat(cluster.awaitQuiet(60_000)).isTrue();
            for (int i = 0; i < 3; i++) assertThat(cluster.instance(i).appliedGsn()).isEqualTo(ringGsn + 3);
            for (String table : List.of("ITEMS", "ORDERS", "ORDER_LINES")) // replicated; carts are local
                assertThat(StoreClusterChecks.digests(cluster, table)).as(table).hasSize(1);
        }
    }

    @Test
    void anInstanceOnARecreatedPostgresDatabaseIsRefusedAndTheOthersCarryOn() throws Exception {
        TestServers.require(Backend.POSTGRES);
        Path dir = TestServers.base().resolve("agreement-" + System.nanoTime());
        try (LocalCluster cluster = LocalCluster.create(Backend.POSTGRES, dir, new OnlineStore(), 3, 1, 42, n -> {})
                .startAll();
             GyroClient client = GyroClient.connect(cluster.addresses())) {
            ordersFromEveryInstance(client, 1);
            assertThat(cluster.awaitQuiet(60_000)).isTrue();
            long ringGsn = cluster.instance(0).appliedGsn();
            List<String> before = digests(cluster, 0, 2);
            cluster.stop(1);
            try (Connection c = cluster.connect(1); java.sql.Statement st = c.createStatement()) {
                st.executeUpdate("DROP SCHEMA public CASCADE"); // the database recreated, empty
                st.executeUpdate("CREATE SCHEMA public");
            }
            assertThatThrownBy(() -> cluster.start(1)).hasMessageContaining("instance 1 refuses to serve")
                    .hasMessageContaining("(a fresh database)").hasMessageContaining("the ring at gsn " + ringGsn);
            assertThat(cluster.instance(0).stopped()).isFalse();
            assertThat(cluster.instance(2).stopped()).isFalse();
            assertThat(digests(cluster, 0, 2)).isEqualTo(before);
        }
    }

    /** One global request (an order) from each instance's partition; the next unused cart id. */
    private static long ordersFromEveryInstance(GyroClient client, long from) {
        long cart = from;
        for (int i = 0; i < 3; i++) {
            cart = StoreClusterChecks.cartOwnedBy(client, i, cart);
            assertThat(client.call("createCart", cart).ok()).isTrue();
            assertThat(client.call("addItem", cart, 3L, 1).ok()).isTrue();
            Reply order = client.call("order", cart);
            assertThat(order.ok()).as(order.toString()).isTrue();
            cart++;
        }
        return cart;
    }

    /** Every table of the given instances' databases, Gyro's state included, as row count and digest. */
    static List<String> digests(LocalCluster cluster, int... instances) throws Exception {
        List<String> all = new ArrayList<>();
        for (int i : instances)
            try (Connection c = cluster.connect(i)) {
                for (String table : TABLES) {
                    ReplicaCheck.TableDigest d = ReplicaCheck.digest(c, table, i);
                    all.add(i + ":" + table + ":" + d.rows() + ":" + d.sha256());
                }
            }
        return all;
    }

    private static void copyDatabase(Path from, Path to) throws Exception {
        deleteDatabase(to);
        for (String suffix : List.of("", "-wal", "-shm")) {
            Path f = Path.of(from + suffix);
            if (Files.exists(f)) Files.copy(f, Path.of(to + suffix), StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private static void deleteDatabase(Path db) throws Exception {
        for (String suffix : List.of("", "-wal", "-shm")) Files.deleteIfExists(Path.of(db + suffix));
    }
}
