package dev.gyro.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gyro.cluster.Backend;
import dev.gyro.cluster.LocalCluster;
import dev.gyro.servers.DatabaseServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code gyro cluster start --config cluster.yaml}: one file describes a cluster; a mistake names line and key. */
@Tag("servers")
@Tag("processes")
class ClusterConfigTest {

    @TempDir
    Path base;

    private final List<Path> clusters = new ArrayList<>();

    @AfterEach
    void stopClusters() {
        for (Path d : clusters) ClusterCommandTest.gyro("cluster", "stop", "--dir", d.toString());
    }

    private Path yaml(String text) throws Exception {
        return Files.writeString(base.resolve("cluster.yaml"), text);
    }

    private void refused(String text, String... expected) throws Exception {
        Path file = yaml(text);
        assertThatThrownBy(() -> ClusterConfig.read(file)).isInstanceOf(IllegalArgumentException.class)
                .message().startsWith(file.toString()).contains(expected);
    }

    @Test
    void theShippedExampleDescribesThreeSqliteInstancesWithTls() throws Exception {
        ClusterConfig c = ClusterConfig.read(Path.of("../docs/cluster.yaml"));
        assertThat(c.application()).isEqualTo("store");
        assertThat(c.backend()).isEqualTo(Backend.SQLITE);
        assertThat(c.instances()).isEqualTo(3);
        assertThat(c.tls()).isTrue();
        assertThat(c.jdbcUrls()).isEmpty();
        assertThat(c.dir()).isEqualTo(Path.of("/tmp/gyro-cluster-example"));
    }

    @Test
    void mistakesNameTheLineAndTheKey() throws Exception {
        refused("application: store\ninstance: 3\n", ":2: instance: unknown key; did you mean 'instances'");
        refused("application: store\n", ":1: instances: missing");
        refused("instances: 2\n", "application: missing");
        refused("application: store\ninstances: zero\n", ":2: instances: expected an integer, got 'zero'");
        refused("application: store\ninstances: 2\ntls: maybe\n", ":3: tls: expected true or false, got 'maybe'");
        refused("application: store\ninstances: 2\nbackend: oracle\n", ":3: backend: unknown backend 'oracle'");
        refused("application: store\ninstances: [\n", "not valid YAML");
        refused("application: store\napplication: tpcw\ninstances: 1\n", ":2: application: given twice (first on line 1)");
        refused("""
                application: store
                instances:
                  - jdbc: jdbc:postgresql://127.0.0.1:5432/a
                  - jdbc: postgres://127.0.0.1:5432/b
                """, ":4: instances[1].jdbc: expected a JDBC URL");
        refused("""
                application: store
                instances:
                  - jdbc: jdbc:postgresql://127.0.0.1:5432/a
                    address: 127.0.0.1:7000
                  - jdbc: jdbc:postgresql://127.0.0.1:5432/b
                    address: 127.0.0.1:7000
                """, ":5: instances[1].address: 127.0.0.1:7000 is instance 0's address too");
        refused("""
                application: store
                instances:
                  - jdbc: jdbc:postgresql://127.0.0.1:5432/a
                  - jdbc: jdbc:mariadb://127.0.0.1:3306/b
                """, "instances[1].jdbc: all instances use one backend");
        refused("""
                application: store
                instances:
                  - jdbc: jdbc:postgresql://127.0.0.1:5432/a
                    adress: 127.0.0.1:7000
                """, ":4: instances[0].adress: unknown key");
        refused("""
                application: store
                instances:
                  - address: 127.0.0.1:70000
                """, "instances[0].address: expected HOST:PORT with a port from 1 to 65535");
    }

    @Test
    void optionsTheFileReplacesAreRefusedBesideIt() throws Exception {
        Path file = yaml("application: store\nbackend: sqlite\ninstances: 1\ndir: " + base.resolve("c") + "\n");
        CliPolishTest.Run r = CliPolishTest.run("cluster", "start", "--config", file.toString(), "--app", "tpcw",
                "--dir", base.resolve("other").toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("describes the cluster; --app, --dir cannot be given beside it");
        assertThat(base.resolve("c")).doesNotExist();
        CliPolishTest.Run missing = CliPolishTest.run("cluster", "start", "--config", base.resolve("nope.yaml").toString());
        assertThat(missing.err()).contains("nope.yaml: no such file");
    }

    @Test
    void theRequestSizeLimitIsAKeyOfTheFile() throws Exception {
        Path file = yaml("application: store\ninstances: 1\nmaxRequestBytes: 65536\n");
        assertThat(ClusterConfig.read(file).maxRequestBytes()).isEqualTo(65536);
        assertThat(ClusterConfig.read(yaml("application: store\ninstances: 1\n")).maxRequestBytes())
                .isEqualTo(dev.gyro.runtime.InstanceConfig.MAX_REQUEST_BYTES);
        refused("application: store\ninstances: 1\nmaxRequestBytes: 10\n",
                "maxRequestBytes: expected a number from 1024 to 268435456, got 10");
    }

    /** An application nobody knows is named before anything starts, even with --detach: not in a background log. */
    @Test
    void anUnknownApplicationIsRefusedBeforeTheClusterStarts() throws Exception {
        Path file = yaml("application: shop\nbackend: sqlite\ninstances: 1\ndir: " + base.resolve("u") + "\n");
        CliPolishTest.Run r = CliPolishTest.run("cluster", "start", "--config", file.toString(), "--detach");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("unknown application 'shop'").contains("store");
        assertThat(base.resolve("u")).doesNotExist();
    }

    /** An address the instances cannot listen on is the one named, not their ring address. */
    @Test
    void anAddressThatCannotBeBoundIsTheOneNamed() {
        CliPolishTest.Run r = CliPolishTest.run("cluster", "start", "--backend", "sqlite", "--instances", "1",
                "--bind", "8.8.8.8", "--dir", base.resolve("b").toString());
        assertThat(r.exit()).isNotZero();
        assertThat(r.out() + r.err()).contains("cannot listen on 8.8.8.8:").contains("--bind");
    }

    /** Existing PostgreSQL databases and fixed addresses, as a deployment would name them, over mutual TLS. */
    @Test
    void aClusterOnExistingDatabasesAtTheAddressesTheFileGives() throws Exception {
        ClusterCommandTest.require(Backend.POSTGRES);
        try (DatabaseServer server = DatabaseServer.create(Backend.POSTGRES.serverKind(),
                dev.gyro.servers.ThrowawayServers.base().resolve("config-pg-" + System.nanoTime())).start()) {
            StringBuilder text = new StringBuilder("application: store\ninstances:\n");
            List<String> addresses = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                server.createDatabase("shop" + i);
                addresses.add("127.0.0.1:" + LocalCluster.freePort());
                text.append("  - jdbc: ").append(server.jdbcUrl("shop" + i)).append("\n    address: ")
                        .append(addresses.get(i)).append('\n');
            }
            Path dir = base.resolve("cluster");
            text.append("dir: cluster\n"); // relative to the file's folder
            clusters.add(dir);
            Path file = yaml(text.toString());
            ClusterCommandTest.Run start = ClusterCommandTest.gyro("cluster", "start", "--config", file.toString(), "--detach");
            assertThat(start.exit()).as(start.out()).isZero();
            assertThat(start.out()).contains("attaching 2 instances of store to postgres databases from " + file);
            JsonNode info = new ObjectMapper().readTree(dir.resolve("cluster.json").toFile());
            assertThat(ClusterCommandTest.addresses(info)).isEqualTo(addresses);
            assertThat(info.get("tls").asText()).isEqualTo(dir.resolve("tls").toString());
            assertThat(info.get("attached").asBoolean()).isTrue();
            ClusterCommandTest.Run cart = ClusterCommandTest.gyro("call", "--cluster", dir.toString(), "createCart", "7");
            assertThat(cart.out()).startsWith("OK [7]");
            ClusterCommandTest.Run stop = ClusterCommandTest.gyro("cluster", "stop", "--dir", dir.toString());
            assertThat(stop.exit()).as(stop.out()).isZero();
            assertThat(server.isRunning()).as("an existing server is not Gyro's to stop").isTrue();
        }
    }
}
