package dev.gyro.bench;

import dev.gyro.app.WorkloadOptions;
import dev.gyro.apps.micro.Micro;
import dev.gyro.cluster.Backend;
import dev.gyro.emulation.Capacity;
import dev.gyro.emulation.wan.Wan;
import dev.gyro.servers.ThrowawayServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The scenario runner's long-lived servers: each point gets new, empty databases on the same servers, and the last
 * point's are gone; a scenario on PostgreSQL runs valid points for Gyro and 2PC with them.
 */
@Tag("servers")
class ServerPoolTest {

    @ParameterizedTest
    @EnumSource(value = Backend.class, names = {"POSTGRES", "MARIADB"})
    void everyPointGetsEmptyDatabasesOnTheSameServers(Backend backend) throws Exception {
        RequireBackend.require(backend);
        Path dir = ThrowawayServers.base().resolve("pool-" + backend.label());
        try (ServerPool pool = new ServerPool(dir)) {
            List<String> first = pool.freshDatabases(backend, 2);
            assertThat(pool.running()).isEqualTo(2);
            for (String url : first) execute(url, "CREATE TABLE LEFT_BEHIND (K INT PRIMARY KEY)");
            pool.dropDatabases();

            List<String> second = pool.freshDatabases(backend, 2);
            assertThat(pool.running()).as("no new server for the next point").isEqualTo(2);
            for (int i = 0; i < 2; i++) {
                assertThat(port(second.get(i))).as("instance %d on the same server", i).isEqualTo(port(first.get(i)));
                assertThat(second.get(i)).isNotEqualTo(first.get(i));
                String url = second.get(i);
                assertThatThrownBy(() -> execute(url, "SELECT K FROM LEFT_BEHIND"))
                        .as("the new database starts empty").isInstanceOf(SQLException.class);
            }
            String gone = first.get(0);
            assertThatThrownBy(() -> execute(gone, "SELECT 1")).as("the last point's database was dropped")
                    .isInstanceOf(SQLException.class);

            List<String> wider = pool.freshDatabases(backend, 3);
            assertThat(pool.running()).as("a third instance starts a third server").isEqualTo(3);
            assertThat(port(wider.get(1))).isEqualTo(port(first.get(1)));
        }
    }

    @Test
    void sqliteHasNoServerToPool() {
        try (ServerPool pool = new ServerPool(Path.of("unused"))) {
            assertThatThrownBy(() -> pool.freshDatabases(Backend.SQLITE, 1))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no database server");
        }
    }

    @Test
    void aScenarioOnPostgresRunsValidPointsOnPooledServers() throws Exception {
        RequireBackend.require(Backend.POSTGRES);
        Micro app = new Micro();
        WorkloadOptions options = WorkloadOptions.of(Map.of("local", "80", "service-ms", "0"));
        Scenario scenario = new Scenario("pooled", "pool test", "none", List.of(
                new Scenario.Setting("n2", "micro", Map.of("instances", 2), app, 1, options, 2, Backend.POSTGRES,
                        Capacity.PLAIN, null, Wan.OFF, List.of())), List.of("gyro", "2pc", "centralized"),
                Scenario.Load.closed(List.of(2, 4)), Duration.ofMillis(300), Duration.ofMillis(1000),
                Scenario.Bound.LAN, 3, true, new Scenario.Figure("instances", "instances", "operations"),
                List.of(), List.of());
        List<Measured> points = ScenarioRunner.run(scenario,
                ThrowawayServers.base().resolve("pooled-scenario"), new ScenarioRunner.Listener() {});
        assertThat(points).hasSize(6);
        for (Measured m : points) {
            assertThat(m.ran()).as(m.system() + ": " + m.notRun()).isTrue();
            assertThat(m.valid()).as(m.system() + ": " + m.problems()).isTrue();
            assertThat(m.problems()).as(m.system()).isEmpty();
            assertThat(m.requests()).as(m.system()).isPositive();
        }
    }

    private static void execute(String url, String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            if (s.execute(sql)) try (ResultSet rs = s.getResultSet()) {
                rs.next();
            }
        }
    }

    private static int port(String url) {
        return java.net.URI.create(url.substring("jdbc:".length())).getPort();
    }
}
