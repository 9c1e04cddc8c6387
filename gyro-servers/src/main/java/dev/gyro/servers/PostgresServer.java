package dev.gyro.servers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A PostgreSQL server of its own: {@code initdb} into {@code DIR/data} (superuser {@code gyro}), started with
 * {@code pg_ctl} on its port. It listens on loopback only, has no Unix socket, and accepts only password
 * authentication (SCRAM-SHA-256): every local account reaches its port, so none is trusted for being local
 * (docs/decisions/13-secure-by-default.md). The password is made at random when the server is initialised and kept in
 * {@code DIR/credentials} (a password file as {@code psql} reads it, {@code PGPASSFILE}), readable by this process's
 * user alone (mode 0600); {@link #jdbcUrl} carries it, so everything that connects through it uses it. A server
 * initialised before passwords (trust, no credentials file) is used as it is. {@code fsync} is off: the data survives
 * a crash of the server process (what the tests simulate), not of the machine. Run as root, every program runs as the
 * {@code postgres} user.
 */
public final class PostgresServer extends DatabaseServer {

    /** The superuser Gyro connects as. */
    public static final String USER = "gyro";
    private static final Duration TIMEOUT = Duration.ofSeconds(120);

    private final ServerBinaries.Postgres bin;
    private final String password; // null for a server initialised before passwords (trust)
    private long startedPid = -1; // to stop the server even if its data directory was removed under it

    private PostgresServer(Path dir, int port, ServerBinaries.Postgres bin, String osUser, String password) {
        super(dir, port, osUser);
        this.bin = bin;
        this.password = password;
    }

    static PostgresServer create(Path dir, int port) {
        ServerBinaries.Postgres bin = ServerBinaries.postgres();
        String osUser = Commands.serverUser("postgres", "postgresql");
        Path abs = createDirectory(dir);
        boolean fresh = !Files.exists(abs.resolve("data").resolve("PG_VERSION"));
        PostgresServer s = new PostgresServer(abs, port, bin, osUser, fresh ? newPassword() : readPassword(abs));
        if (fresh) s.initialise();
        return s;
    }

    private void initialise() {
        prepareDirectory();
        // initdb reads the password from a file of the server's user, removed at once; only password (SCRAM)
        // authentication is allowed, for TCP and the (disabled) Unix socket alike.
        Path pwfile = dir.resolve("initdb-password");
        try {
            writePrivate(pwfile, password + "\n");
            Commands.chown(pwfile, osUser);
            Commands.check("initdb of a PostgreSQL server in " + data(), List.of(bin.initdb().toString(), "-D",
                    data().toString(), "-U", USER, "--auth=scram-sha-256", "--pwfile=" + pwfile, "-E", "UTF8",
                    "--no-locale", "--no-sync"), osUser, TIMEOUT);
            writeCredentials(USER, password);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot keep the password of the server in " + dir, e);
        } finally {
            try {
                Files.deleteIfExists(pwfile);
            } catch (IOException ignored) {
                // removed with the server's directory
            }
        }
        String settings = "\n# Gyro: a throwaway server, reachable on loopback only (dev.gyro.servers)\n"
                + "listen_addresses = '127.0.0.1'\n"
                + "unix_socket_directories = ''\n"
                + "fsync = off\n"
                + "max_connections = 200\n"
                // two-phase commit (the 2pc and ShardingSphere XA baselines) needs prepared transactions
                + "max_prepared_transactions = 200\n";
        try {
            Files.writeString(data().resolve("postgresql.conf"), settings, StandardCharsets.UTF_8,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot configure " + data(), e);
        }
    }

    @Override
    public ServerKind kind() {
        return ServerKind.POSTGRES;
    }

    @Override
    protected void doStart() {
        Commands.Result r = Commands.run(pgCtl("-l", log().toString(), "-w", "-t", "60", "-o", "-p " + port, "start"),
                osUser, TIMEOUT);
        if (!r.ok())
            throw new IllegalStateException("the PostgreSQL server in " + dir + " did not start on port " + port
                    + ":\n" + Commands.tail(r.output(), 5) + "\n" + Commands.tail(log(), 15));
        startedPid = pid();
    }

    @Override
    protected void doStop() {
        Commands.Result r = Commands.run(pgCtl("-m", "fast", "-w", "-t", "60", "stop"), osUser, TIMEOUT);
        if (r.ok()) return;
        if (startedPid > 0 && Commands.alive(startedPid)) {
            // pg_ctl cannot reach the server (its data directory is gone): SIGINT is a fast shutdown
            ProcessHandle.of(startedPid).ifPresent(h -> {
                Commands.run(java.util.List.of("kill", "-INT", Long.toString(startedPid)), null, Duration.ofSeconds(10));
                try {
                    h.onExit().get(60, java.util.concurrent.TimeUnit.SECONDS);
                } catch (Exception e) {
                    h.destroyForcibly();
                }
            });
            return;
        }
        throw new IllegalStateException("stopping " + this + " failed:\n" + Commands.tail(r.output(), 10));
    }

    /** An immediate shutdown: the server processes quit without writing anything; the next start recovers. */
    @Override
    protected void doCrash() {
        Commands.check("crashing " + this, pgCtl("-m", "immediate", "-w", "-t", "60", "stop"), osUser, TIMEOUT);
    }

    private List<String> pgCtl(String... args) {
        List<String> c = new ArrayList<>(List.of(bin.pgCtl().toString(), "-D", data().toString()));
        c.addAll(List.of(args));
        return c;
    }

    static boolean stopAt(Path dir) {
        Path data = dir.resolve("data");
        if (!Files.exists(data.resolve("postmaster.pid"))) return false;
        ServerBinaries.Postgres bin = ServerBinaries.postgres();
        String osUser = Commands.serverUser("postgres", "postgresql");
        return Commands.run(List.of(bin.pgCtl().toString(), "-D", data.toString(), "-m", "fast", "-w", "stop"),
                osUser, TIMEOUT).ok();
    }

    @Override
    public boolean isRunning() {
        return pid() > 0 || (startedPid > 0 && !java.nio.file.Files.exists(data()) && Commands.alive(startedPid));
    }

    @Override
    public long pid() {
        Path pidFile = data().resolve("postmaster.pid");
        try {
            if (!Files.exists(pidFile)) return -1;
            List<String> lines = Files.readAllLines(pidFile);
            if (lines.isEmpty()) return -1;
            long pid = Long.parseLong(lines.get(0).strip());
            return Commands.alive(pid) ? pid : -1;
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
    }

    @Override
    public String jdbcUrl(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + checkName(database) + "?user=" + USER
                + (password == null ? "" : "&password=" + password);
    }

    @Override
    public void createDatabase(String name) throws SQLException {
        checkName(name);
        try (Connection c = DriverManager.getConnection(jdbcUrl("postgres"))) {
            try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM pg_database WHERE datname = ?")) {
                ps.setString(1, name);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) return;
                }
            }
            try (Statement st = c.createStatement()) {
                st.execute("CREATE DATABASE " + name);
            }
        }
    }

    @Override
    public void dropDatabase(String name) throws SQLException {
        checkName(name);
        try (Connection c = DriverManager.getConnection(jdbcUrl("postgres")); Statement st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        }
    }

    @Override
    public String clientCommand(String database) {
        return (password == null ? "" : "PGPASSFILE=" + dir.resolve(CREDENTIALS) + " ") + "psql -h 127.0.0.1 -p "
                + port + " -U " + USER + " " + database;
    }
}
