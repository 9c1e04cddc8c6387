package dev.gyro.servers;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Throwaway servers: they start on their own port, keep their data across a clean stop and across a crash. */
@Tag("servers")
class DatabaseServerTest {

    @TempDir
    Path empty;

    /** Skipped when the server is not installed; failed instead under CI=true. */
    static DatabaseServer privateServer(ServerKind kind) {
        String reason = kind.unavailableReason();
        if (reason != null) {
            if ("true".equalsIgnoreCase(System.getenv("CI"))) Assertions.fail("CI=true and " + reason);
            Assumptions.abort("skipped: " + reason);
        }
        return ThrowawayServers.privateServer(kind);
    }

    @ParameterizedTest
    @EnumSource(ServerKind.class)
    void aServerKeepsCommittedDataAcrossACleanStopAndACrash(ServerKind kind) throws Exception {
        try (DatabaseServer server = privateServer(kind)) {
            assertThat(server.isRunning()).isTrue();
            assertThat(server.port()).isNotIn(5432, 3306);
            server.createDatabase("keep");
            String url = server.jdbcUrl("keep");
            exec(url, "CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER)", "INSERT INTO t VALUES (1, 10)");

            server.stop();
            assertThat(server.isRunning()).isFalse();
            assertThatThrownBy(() -> DriverManager.getConnection(url).close()).isInstanceOf(SQLException.class);
            server.start();
            assertThat(count(url)).isEqualTo(1);

            exec(url, "INSERT INTO t VALUES (2, 20)");
            long pid = server.pid();
            server.crash();
            assertThat(DatabaseServer.processAlive(pid)).isFalse();
            server.start();
            assertThat(count(url)).as("a committed row survives a crash of the server").isEqualTo(2);
        }
    }

    /**
     * Another program takes the port a new server was given before it first starts (a test JVM beside this one did,
     * under load): the server starts on another port. Once it has started, its port is known and stays: taken, the
     * start is refused, naming the port.
     */
    @ParameterizedTest
    @EnumSource(ServerKind.class)
    void aPortTakenBeforeTheFirstStartMovesTheServerAfterwardsItIsRefused(ServerKind kind) throws Exception {
        privateServer(kind).close(); // skips when the kind is not installed
        try (DatabaseServer server = DatabaseServer.create(kind,
                ThrowawayServers.base().resolve("moved-" + kind.label() + "-" + System.nanoTime()))) {
            int given = server.port();
            try (java.net.ServerSocket other = new java.net.ServerSocket(given, 50,
                    java.net.InetAddress.getByName("127.0.0.1"))) {
                server.start();
                assertThat(server.port()).as("moved off the taken port").isNotEqualTo(given);
                assertThat(server.isRunning()).isTrue();
            }
            server.stop();
            int kept = server.port();
            try (java.net.ServerSocket other = new java.net.ServerSocket(kept, 50,
                    java.net.InetAddress.getByName("127.0.0.1"))) {
                assertThatThrownBy(server::start).hasMessageContaining("port " + kept + " is taken by another program");
            }
        }
    }

    @ParameterizedTest
    @EnumSource(ServerKind.class)
    void stopAtStopsAServerLeftBehindByItsDirectory(ServerKind kind) throws Exception {
        DatabaseServer server = privateServer(kind);
        long pid = server.pid();
        assertThat(DatabaseServer.stopAnyAt(server.directory())).isTrue();
        assertThat(DatabaseServer.processAlive(pid)).isFalse();
        assertThat(server.isRunning()).isFalse();
        assertThat(DatabaseServer.stopAt(kind, server.directory())).isFalse();
    }

    /**
     * Every local account reaches a throwaway server's port, so a server trusts none for being local: it asks for the
     * password made when it was initialised, kept in its directory for this process's user alone, which its JDBC URL
     * carries (and so does the same server's URL made again from its directory). No other account logs in without one.
     */
    @ParameterizedTest
    @EnumSource(ServerKind.class)
    void aServerAcceptsOnlyItsPasswordKeptInAFileOfMode0600(ServerKind kind) throws Exception {
        String database = kind == ServerKind.POSTGRES ? "postgres" : "mysql";
        Path dir;
        try (DatabaseServer server = privateServer(kind)) {
            dir = server.directory();
            Path credentials = dir.resolve(DatabaseServer.CREDENTIALS);
            assertThat(java.nio.file.Files.getPosixFilePermissions(credentials))
                    .isEqualTo(java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
            assertThat(java.nio.file.Files.getOwner(credentials).getName()).isEqualTo(System.getProperty("user.name"));
            String url = server.jdbcUrl(database);
            assertThat(url).containsPattern("&password=\\w{32}$");
            String password = url.substring(url.lastIndexOf('=') + 1);
            assertThat(java.nio.file.Files.readString(credentials)).endsWith(":" + password + "\n");
            exec(url, "SELECT 1");

            String none = url.replaceAll("&password=\\w+", "");
            String wrong = url.replaceAll("password=\\w+", "password=guessed");
            String stranger = url.replaceAll("user=\\w+&password=\\w+", "user=nobody");
            for (String refused : List.of(none, wrong, stranger))
                assertThatThrownBy(() -> DriverManager.getConnection(refused).close()).as(refused)
                        .isInstanceOf(SQLException.class)
                        .hasMessageMatching("(?is).*(password|access denied).*");
            if (kind == ServerKind.POSTGRES) {
                List<String> rules = java.nio.file.Files.readAllLines(dir.resolve("data").resolve("pg_hba.conf"))
                        .stream().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
                assertThat(rules).isNotEmpty().allMatch(l -> l.endsWith("scram-sha-256"), "password authentication only");
            }
            assertThat(server.clientCommand(database)).contains(credentials.toString());
        }
        try (DatabaseServer again = DatabaseServer.create(kind, dir).start()) {
            exec(again.jdbcUrl(database), "SELECT 1"); // the password read back from the directory
        }
    }

    @Test
    void aMissingServerProgramNamesTheDebianPackage() {
        assertThatThrownBy(() -> ServerBinaries.postgres(List.of(empty)))
                .isInstanceOf(MissingServerException.class)
                .hasMessageContaining("initdb").hasMessageContaining("apt-get install postgresql")
                .satisfies(e -> assertThat(((MissingServerException) e).debianPackage()).isEqualTo("postgresql"));
        assertThatThrownBy(() -> ServerBinaries.mariadb(List.of(empty)))
                .isInstanceOf(MissingServerException.class)
                .hasMessageContaining("mariadbd").hasMessageContaining("apt-get install mariadb-server");
    }

    @Test
    void kindsAreChosenByName() {
        assertThat(ServerKind.parse("PostgreSQL")).isEqualTo(ServerKind.POSTGRES);
        assertThat(ServerKind.parse("mysql")).isEqualTo(ServerKind.MARIADB);
        assertThatThrownBy(() -> ServerKind.parse("oracle")).hasMessageContaining("postgres, mariadb");
        assertThat(ServerKind.MARIADB.debianPackage()).isEqualTo("mariadb-server");
    }

    static void exec(String url, String... sqls) throws SQLException {
        try (Connection c = DriverManager.getConnection(url); Statement st = c.createStatement()) {
            for (String sql : sqls) st.execute(sql);
        }
    }

    static long count(String url) throws SQLException {
        try (Connection c = DriverManager.getConnection(url); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM t")) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
