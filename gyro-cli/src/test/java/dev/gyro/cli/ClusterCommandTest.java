package dev.gyro.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gyro.client.GyroClient;
import dev.gyro.wire.Reply;
import dev.gyro.cluster.Backend;
import dev.gyro.cluster.LocalCluster;
import dev.gyro.servers.DatabaseServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code gyro cluster} and {@code gyro demo --backend} on real PostgreSQL and MariaDB servers that the commands
 * start themselves. Skipped when a server is not installed, failed instead under CI=true.
 */
@Tag("servers")
@Tag("processes")
class ClusterCommandTest {

    static Path base;
    final List<Path> clusters = new ArrayList<>();

    @AfterEach
    void stopClusters() {
        for (Path d : clusters) gyro("cluster", "stop", "--dir", d.toString()); // even when the test failed
    }

    @BeforeAll
    static void directory() throws Exception {
        // The servers run as the postgres/mysql users when the tests run as root: JUnit's @TempDir (rwx------)
        // would keep them out.
        base = Files.createTempDirectory("gyro-cluster-test");
        Files.setPosixFilePermissions(base, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    @AfterAll
    static void cleanUp() throws Exception {
        try (Stream<Path> all = Files.walk(base)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        }
    }

    static void require(Backend backend) {
        String reason = backend.unavailableReason();
        if (reason == null) return;
        if ("true".equalsIgnoreCase(System.getenv("CI"))) Assertions.fail("CI=true and " + reason);
        Assumptions.abort("skipped: " + reason);
    }

    record Run(int exit, String out) {}

    static Run gyro(String... args) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream saved = System.out;
        int exit;
        try {
            System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
            exit = Gyro.commandLine().execute(args);
        } finally {
            System.setOut(saved);
        }
        return new Run(exit, bytes.toString(StandardCharsets.UTF_8));
    }

    static List<String> addresses(JsonNode info) {
        List<String> out = new ArrayList<>();
        for (JsonNode n : info.get("instances")) out.add(n.get("address").asText());
        return out;
    }

    static long stock(String jdbcUrl, long item) throws Exception {
        try (Connection c = DriverManager.getConnection(jdbcUrl); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT STOCK FROM ITEMS WHERE I_ID = " + item)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Waits until item 5's stock is {@code expected} in every database (the order's update went round). */
    static void awaitStock(List<String> jdbcUrls, long expected) throws Exception {
        long deadline = System.currentTimeMillis() + 15_000;
        for (String url : jdbcUrls) {
            while (stock(url, 5) != expected && System.currentTimeMillis() < deadline) Thread.sleep(50);
            assertThat(stock(url, 5)).as("stock of item 5 in " + url).isEqualTo(expected);
        }
    }

    /** Places an order of two units of item 5 through the cluster. */
    static void orderThrough(List<String> ring, dev.gyro.wire.Transport transport, long cart) {
        try (GyroClient client = GyroClient.connect(ring, transport)) {
            assertThat(client.call("createCart", cart).ok()).isTrue();
            assertThat(client.call("addItem", cart, 5L, 2).ok()).isTrue();
            Reply order = client.call("order", cart);
            assertThat(order.status()).as(order.toString()).isEqualTo(Reply.Status.OK);
            assertThat(order.executedAs()).isEqualTo("global");
        }
    }

    @Test
    void startDetachedOnPostgresServesRequestsAndStopTearsEverythingDown() throws Exception {
        require(Backend.POSTGRES);
        Path dir = base.resolve("pg");
        clusters.add(dir);
        Run start = gyro("cluster", "start", "--backend", "postgres", "--instances", "2", "--dir", dir.toString(),
                "--detach");
        assertThat(start.exit()).as(start.out()).isZero();
        assertThat(start.out()).contains("gyro cluster: ready").contains("psql -h 127.0.0.1 -p")
                .contains("gyro cluster stop --dir");
        JsonNode info = new ObjectMapper().readTree(dir.resolve("cluster.json").toFile());
        assertThat(info.get("backend").asText()).isEqualTo("postgres");
        List<Long> pids = new ArrayList<>(List.of(info.get("pid").asLong()));
        for (JsonNode n : info.get("instances")) pids.add(n.get("server").get("pid").asLong());
        assertThat(pids).allMatch(DatabaseServer::processAlive);
        Run status = gyro("cluster", "status", "--dir", dir.toString());
        assertThat(status.out()).contains("2 instances of store on postgres");

        // the servers ask for the password kept in each one's directory, for this user alone; cluster.json hides it
        for (JsonNode n : info.get("instances")) {
            assertThat(n.get("jdbcUrl").asText()).endsWith("&password=***");
            Path credentials = Path.of(n.get("server").get("directory").asText(), DatabaseServer.CREDENTIALS);
            assertThat(Files.getPosixFilePermissions(credentials)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
            String hidden = n.get("jdbcUrl").asText();
            assertThatThrownBy(() -> DriverManager.getConnection(hidden).close())
                    .hasMessageContaining("password authentication failed");
        }
        String url0 = ClusterCommand.jdbcUrl(info.get("instances").get(0));
        String url1 = ClusterCommand.jdbcUrl(info.get("instances").get(1));
        long before = stock(url0, 5);
        orderThrough(addresses(info), ClusterCommand.clientTransport(dir), 11);
        awaitStock(List.of(url0, url1), before - 2); // the order's update reached both servers
        // secure by default: the cluster's own CA, and nothing without its certificate gets through
        assertThat(info.get("tls").asText()).isEqualTo(dir.resolve("tls").toAbsolutePath().toString());
        assertThat(dir.resolve("tls/ca.crt")).exists();
        assertThatThrownBy(() -> GyroClient.connect(addresses(info))).hasMessageContaining("UNAVAILABLE");
        Run call = gyro("call", "--cluster", dir.toString(), "getCart", "11");
        assertThat(call.out()).startsWith("OK");

        // the cart's bucket moves to the other instance with its rows, and the cart is served there; rebalance evens
        // the map out again (docs/decisions/43-bucket-moves.md)
        int bucket, owner;
        try (GyroClient c = GyroClient.connect(addresses(info), ClusterCommand.clientTransport(dir))) {
            bucket = c.routing().map().bucketOf(new dev.gyro.protocol.Value.Int(11));
            owner = c.routing().map().ownerOfBucket(bucket);
        }
        Run move = gyro("cluster", "move", "--dir", dir.toString(), "--buckets", String.valueOf(bucket), "--to",
                String.valueOf(1 - owner));
        assertThat(move.exit()).as(move.out()).isZero();
        assertThat(move.out()).contains("moved buckets [" + bucket + "] (2 rows) from instance " + owner
                + " to instance " + (1 - owner)).contains("map version 2");
        Run moved = gyro("call", "--cluster", dir.toString(), "getCart", "11");
        assertThat(moved.out()).startsWith("OK").contains("instance " + (1 - owner));
        Run again = gyro("cluster", "move", "--dir", dir.toString(), "--buckets", String.valueOf(bucket), "--to",
                String.valueOf(1 - owner));
        assertThat(again.exit()).isEqualTo(1);
        assertThat(again.out()).contains("already owns");
        Run rebalance = gyro("cluster", "rebalance", "--dir", dir.toString());
        assertThat(rebalance.exit()).as(rebalance.out()).isZero();
        assertThat(rebalance.out()).contains("map version 3").contains("instance 0 128 buckets, instance 1 128 buckets");

        Run stop = gyro("cluster", "stop", "--dir", dir.toString());
        assertThat(stop.exit()).as(stop.out()).isZero();
        assertThat(pids).noneMatch(DatabaseServer::processAlive);
        assertThat(dir).as("data removed, and the folder start made").doesNotExist();
        assertThat(gyro("cluster", "status", "--dir", dir.toString()).exit()).isNotZero();
    }

    /**
     * {@code cluster add-instance} and {@code remove-instance} on a detached SQLite cluster with TLS
     * (docs/decisions/44-ring-changes.md): a third instance joins and takes a fair share of the buckets, a cart filled
     * before is served where its bucket went, and instance 0 leaves once its buckets moved away.
     */
    @Test
    void aRunningClusterGrowsByAnInstanceAndShrinksByAnother() throws Exception {
        Path dir = base.resolve("grow");
        clusters.add(dir);
        Run start = gyro("cluster", "start", "--backend", "sqlite", "--instances", "2", "--dir", dir.toString(),
                "--detach");
        assertThat(start.exit()).as(start.out()).isZero();
        for (long cart = 1; cart <= 5; cart++) {
            assertThat(gyro("call", "--cluster", dir.toString(), "createCart", String.valueOf(cart)).out()).startsWith("OK");
            assertThat(gyro("call", "--cluster", dir.toString(), "addItem", String.valueOf(cart), "7", "2").out())
                    .startsWith("OK");
        }
        Run add = gyro("cluster", "add-instance", "--dir", dir.toString());
        assertThat(add.exit()).as(add.out()).isZero();
        assertThat(add.out()).contains("instance 2 at 127.0.0.1:").contains("joined the ring")
                .contains("to instance 2 at gsn").contains("instance 0 86 buckets, instance 1 85 buckets, instance 2 85 buckets");
        Run status = gyro("cluster", "status", "--dir", dir.toString());
        assertThat(status.exit()).as(status.out()).isZero();
        assertThat(status.out()).contains("3 of 3 instances up");
        for (long cart = 1; cart <= 5; cart++)
            assertThat(gyro("call", "--cluster", dir.toString(), "getCart", String.valueOf(cart)).out())
                    .as("cart %d", cart).startsWith("OK [7, 2]");

        Run remove = gyro("cluster", "remove-instance", "--dir", dir.toString(), "--instance", "0");
        assertThat(remove.exit()).as(remove.out()).isZero();
        assertThat(remove.out()).contains("instance 0 left the ring and stopped")
                .contains("instance 1 128 buckets, instance 2 128 buckets");
        Run after = gyro("cluster", "status", "--dir", dir.toString());
        assertThat(after.exit()).as(after.out()).isZero();
        assertThat(after.out()).contains("2 of 2 instances up");
        for (long cart = 1; cart <= 5; cart++)
            assertThat(gyro("call", "--cluster", dir.toString(), "getCart", String.valueOf(cart)).out())
                    .as("cart %d", cart).startsWith("OK [7, 2]");
        Run order = gyro("call", "--cluster", dir.toString(), "order", "3");
        assertThat(order.out()).startsWith("OK");
        Run refused = gyro("cluster", "remove-instance", "--dir", dir.toString(), "--instance", "0");
        assertThat(refused.exit()).isEqualTo(1);
        assertThat(gyro("cluster", "stop", "--dir", dir.toString()).exit()).isZero();
    }

    /**
     * {@code cluster start --replicas 3}: two instances, each a group of three replicas on SQLite files, with mutual
     * TLS; requests and calls through the groups, a replica replaced from a copy of its leader's database with one
     * command, a third group added and the first removed while it serves (docs/decisions/44-ring-changes.md), and stop
     * tearing everything down.
     */
    @Test
    void aReplicatedClusterServesReplacesAReplicaGrowsAndShrinks() throws Exception {
        Path dir = base.resolve("replicated");
        clusters.add(dir);
        Run start = gyro("cluster", "start", "--backend", "sqlite", "--instances", "2", "--replicas", "3", "--dir",
                dir.toString(), "--detach");
        assertThat(start.exit()).as(start.out()).isZero();
        assertThat(start.out()).contains("gyro cluster: ready").contains("each a group of 3 replicas")
                .contains("gyro cluster replace --dir");
        JsonNode info = new ObjectMapper().readTree(dir.resolve("cluster.json").toFile());
        assertThat(info.get("replicas").asInt()).isEqualTo(3);
        assertThat(info.get("instances").get(0).get("replicas")).hasSize(3);
        assertThat(addresses(info)).allMatch(a -> a.split("\\+").length == 3);

        long before = stock("jdbc:sqlite:" + LocalCluster.databaseFile(dir, 0), 5);
        orderThrough(addresses(info), ClusterCommand.clientTransport(dir), 11);
        assertThat(gyro("call", "--cluster", dir.toString(), "getCart", "11").out()).startsWith("OK");

        // replace a replica of group 1 that does not lead it (the leader is refused, with the reason)
        Run replaced = null;
        int replica = -1;
        for (int r = 0; r < 3 && (replaced == null || replaced.exit() != 0); r++) {
            replaced = gyro("cluster", "replace", "--dir", dir.toString(), "--group", "1", "--replica",
                    Integer.toString(r));
            replica = r;
            if (replaced.exit() != 0) assertThat(replaced.out()).contains("replacing");
        }
        assertThat(replaced.exit()).as(replaced.out()).isZero();
        assertThat(replaced.out()).contains("rebuilt from a copy of its leader's database");
        List<String> urls = new ArrayList<>();
        for (int i = 0; i < 6; i++) urls.add("jdbc:sqlite:" + LocalCluster.databaseFile(dir, i));
        awaitStock(urls, before - 2); // every replica of both groups, the rebuilt one (3 + replica) included
        assertThat(replica).isBetween(0, 2);

        // replica 0 of group 1 is lost for good, its machine with its database and log: a new member on new addresses
        // takes its place with one command (docs/decisions/47-new-member.md), and the cluster serves through it
        String group1 = addresses(info).get(1);
        Run member = gyro("cluster", "replace", "--dir", dir.toString(), "--group", "1", "--replica", "0",
                "--new-member");
        assertThat(member.exit()).as(member.out()).isZero();
        assertThat(member.out()).contains("is a new member on").contains("with a database of its own");
        List<String> moved = addresses(new ObjectMapper().readTree(dir.resolve("cluster.json").toFile()));
        assertThat(moved.get(1).split("\\+")).hasSize(3).doesNotContain(group1.split("\\+")[0])
                .contains(group1.split("\\+")[1], group1.split("\\+")[2]);
        assertThat(gyro("call", "--cluster", dir.toString(), "getCart", "11").out()).startsWith("OK");
        orderThrough(moved, ClusterCommand.clientTransport(dir), 13);
        assertThat(gyro("cluster", "replace", "--dir", dir.toString(), "--group", "1", "--replica", "-1").exit())
                .as("a negative replica refused").isEqualTo(2);

        // a third group joins and takes a fair share of the buckets; then group 0 gives its away and leaves
        Run single = gyro("cluster", "add-instance", "--dir", dir.toString(), "--replicas", "1");
        assertThat(single.exit()).as("a new instance of one replica refused (the message goes to stderr)").isEqualTo(2);
        Run add = gyro("cluster", "add-instance", "--dir", dir.toString(), "--replicas", "3");
        assertThat(add.exit()).as(add.out()).isZero();
        assertThat(add.out()).contains("group 2 of cluster").contains("a group of 3 replicas")
                .contains("joined the ring").contains("to instance 2 at gsn")
                .contains("instance 0 86 buckets, instance 1 85 buckets, instance 2 85 buckets");
        assertThat(gyro("cluster", "status", "--dir", dir.toString()).out()).contains("3 of 3 instances up");
        assertThat(gyro("call", "--cluster", dir.toString(), "getCart", "11").out()).startsWith("OK");
        Run remove = gyro("cluster", "remove-instance", "--dir", dir.toString(), "--instance", "0");
        assertThat(remove.exit()).as(remove.out()).isZero();
        assertThat(remove.out()).contains("instance 0 left the ring and stopped")
                .contains("instance 1 128 buckets, instance 2 128 buckets");
        Run after = gyro("cluster", "status", "--dir", dir.toString());
        assertThat(after.exit()).as(after.out()).isZero();
        assertThat(after.out()).contains("2 of 2 instances up");
        assertThat(gyro("call", "--cluster", dir.toString(), "getCart", "11").out()).startsWith("OK");
        assertThat(gyro("call", "--cluster", dir.toString(), "createCart", "12").out()).startsWith("OK");

        Run stop = gyro("cluster", "stop", "--dir", dir.toString());
        assertThat(stop.exit()).as(stop.out()).isZero();
        assertThat(dir).as("data removed, and the folder start made").doesNotExist();
    }

    @Test
    void attachesToExistingMariaDbServersNamedInAConfigurationFileAndLeavesThemRunning() throws Exception {
        require(Backend.MARIADB);
        List<DatabaseServer> servers = new ArrayList<>();
        try {
            StringBuilder config = new StringBuilder("# two existing servers\napp = store\nscale = 1\n");
            for (int i = 0; i < 2; i++) {
                DatabaseServer s = DatabaseServer.create(Backend.MARIADB.serverKind(), base.resolve("existing-" + i)).start();
                servers.add(s);
                s.createDatabase("shop");
                config.append("instance.").append(i).append(".jdbc = ").append(s.jdbcUrl("shop")).append('\n');
            }
            Path file = base.resolve("cluster.properties");
            Files.writeString(file, config);
            Path dir = base.resolve("attached");
            clusters.add(dir);
            Run start = gyro("cluster", "start", "--config", file.toString(), "--dir", dir.toString(), "--detach");
            assertThat(start.exit()).as(start.out()).isZero();
            assertThat(start.out()).contains("attaching 2 instances of store to mariadb databases");
            JsonNode info = new ObjectMapper().readTree(dir.resolve("cluster.json").toFile());
            long before = stock(servers.get(1).jdbcUrl("shop"), 5);
            orderThrough(addresses(info), ClusterCommand.clientTransport(dir), 12);
            awaitStock(List.of(servers.get(0).jdbcUrl("shop"), servers.get(1).jdbcUrl("shop")), before - 2);
            Run stop = gyro("cluster", "stop", "--dir", dir.toString());
            assertThat(stop.exit()).as(stop.out()).isZero();
            assertThat(servers).as("attached servers are not Gyro's to stop").allMatch(DatabaseServer::isRunning);
            assertThat(stock(servers.get(1).jdbcUrl("shop"), 5)).isEqualTo(before - 2);
        } finally {
            for (DatabaseServer s : servers) s.stop();
        }
    }

    @Test
    void theDemoRunsOnMariaDbServersItStartsItself() {
        require(Backend.MARIADB);
        Run demo = gyro("demo", "--backend", "mariadb", "--instances", "2", "--clients", "4", "--duration", "2",
                "--dir", base.resolve("demo").toString());
        String[] lines = demo.out().strip().split("\n");
        assertThat(lines[lines.length - 1]).as(demo.out()).startsWith("demo: OK");
        assertThat(demo.exit()).isZero();
        assertThat(demo.out()).contains("2 MariaDB servers under").contains("mariadb servers: 127.0.0.1:");
    }

    /** {@code gyro instance --jdbc-url}: one instance as its own process, on a PostgreSQL server of its own. */
    @Test
    void anInstanceProcessRunsOnTheDatabaseItsJdbcUrlNames() throws Exception {
        require(Backend.POSTGRES);
        try (DatabaseServer server = DatabaseServer.create(Backend.POSTGRES.serverKind(), base.resolve("single")).start()) {
            server.createDatabase("one");
            String ring = "127.0.0.1:" + dev.gyro.cluster.LocalCluster.freePort();
            Process p = new ProcessBuilder(GyroProcesses.command(List.of("instance", "--id", "0", "--ring", ring,
                    "--jdbc-url", server.jdbcUrl("one"), "--load", "1", "--insecure"))).redirectErrorStream(true).start();
            try {
                java.io.BufferedReader out = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream()));
                StringBuilder seen = new StringBuilder();
                for (String line; (line = out.readLine()) != null; ) {
                    seen.append(line).append('\n');
                    if (line.startsWith("gyro instance 0")) break;
                }
                assertThat(seen.toString()).contains("database jdbc:postgresql://127.0.0.1:" + server.port() + "/one");
                long before = stock(server.jdbcUrl("one"), 5);
                orderThrough(List.of(ring), dev.gyro.wire.Transport.insecure(), 13);
                assertThat(stock(server.jdbcUrl("one"), 5)).isEqualTo(before - 2);
            } finally {
                p.destroy();
                p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void anUnknownBackendIsRefusedWithTheKnownOnes() {
        Run demo = gyro("demo", "--backend", "oracle", "--dir", base.resolve("x").toString());
        assertThat(demo.exit()).isNotZero();
        assertThat(demo.out()).contains("unknown backend 'oracle'").contains("sqlite, postgres, mariadb");
    }
}
