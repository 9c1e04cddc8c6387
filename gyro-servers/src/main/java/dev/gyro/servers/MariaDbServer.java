package dev.gyro.servers;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A MariaDB server of its own: {@code mariadb-install-db} into {@code DIR/data}, then {@code mariadbd
 * --no-defaults} (no configuration file of the machine is read) on its port, bound to loopback, with
 * {@code root@127.0.0.1}, which {@code --auth-root-authentication-method=normal} creates. Every local account reaches
 * its port, so root has a password of its own (docs/decisions/13-secure-by-default.md): made at random for each
 * server, kept in {@code DIR/credentials} ({@link #CREDENTIALS}, mode 0600) and carried by {@link #jdbcUrl}; the
 * server sets it from an init file of its own user (mode 0600) every time it starts, before it accepts connections.
 * A server initialised before passwords (no credentials file) is used as it is.
 * InnoDB writes its log to the operating system at every commit and flushes it once a second
 * ({@code innodb_flush_log_at_trx_commit=2}): committed data survives a crash of the server process, not of the
 * machine. The default isolation level is SERIALIZABLE. Run as root, the server runs as the {@code mysql} user.
 *
 * <p>Installing a data directory takes seconds, so the first one of this JVM is kept as a template and copied.
 */
public final class MariaDbServer extends DatabaseServer {

    /** The user Gyro connects as. */
    public static final String USER = "root";
    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    private static Path template;

    private final ServerBinaries.MariaDb bin;
    private final String password; // null for a server initialised before passwords
    private Process process;

    private MariaDbServer(Path dir, int port, ServerBinaries.MariaDb bin, String osUser, String password) {
        super(dir, port, osUser);
        this.bin = bin;
        this.password = password;
    }

    static MariaDbServer create(Path dir, int port) {
        ServerBinaries.MariaDb bin = ServerBinaries.mariadb();
        String osUser = Commands.serverUser("mysql", "mariadb-server");
        Path abs = createDirectory(dir);
        boolean fresh = !Files.isDirectory(abs.resolve("data").resolve("mysql"));
        MariaDbServer s = new MariaDbServer(abs, port, bin, osUser, fresh ? newPassword() : readPassword(abs));
        if (fresh) s.initialise();
        return s;
    }

    private void initialise() {
        prepareDirectory();
        copyTree(template(bin, osUser), data());
        Commands.chown(dir, osUser);
        try {
            // root's password at every start, before the server accepts connections; the template has none, and no
            // anonymous account may log in either
            Path init = initFile();
            writePrivate(init, "ALTER USER IF EXISTS 'root'@'127.0.0.1' IDENTIFIED BY '" + password + "';\n"
                    + "ALTER USER IF EXISTS 'root'@'localhost' IDENTIFIED BY '" + password + "';\n"
                    + "ALTER USER IF EXISTS 'root'@'::1' IDENTIFIED BY '" + password + "';\n"
                    + "DROP USER IF EXISTS ''@'localhost';\n"
                    + "DROP USER IF EXISTS ''@'127.0.0.1';\n");
            Commands.chown(init, osUser);
            writeCredentials(USER, password);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot keep the password of the server in " + dir, e);
        }
    }

    private Path initFile() {
        return dir.resolve("init.sql");
    }

    /** A freshly installed data directory, made once per JVM. */
    private static synchronized Path template(ServerBinaries.MariaDb bin, String osUser) {
        if (template != null && Files.isDirectory(template.resolve("mysql"))) return template;
        try {
            Path base = Files.createTempDirectory("gyro-mariadb-template");
            Files.setPosixFilePermissions(base, PosixFilePermissions.fromString("rwxr-xr-x"));
            Path data = base.resolve("data");
            List<String> cmd = new ArrayList<>(List.of(bin.installDb().toString(), "--no-defaults",
                    "--datadir=" + data, "--auth-root-authentication-method=normal", "--skip-test-db",
                    "--innodb-log-file-size=16M", "--innodb-buffer-pool-size=32M"));
            if (osUser != null) cmd.add("--user=" + osUser);
            try {
                Commands.check("mariadb-install-db", cmd, null, TIMEOUT);
            } catch (IllegalStateException first) {
                // Seen once, with a second JVM installing its own at the same moment: the bootstrap failed within a
                // second. Said, then tried once more on a clean directory; a second failure is the caller's.
                System.err.println("gyro: " + first.getMessage() + "\ngyro: installing once more");
                deleteTree(data);
                Commands.check("mariadb-install-db", cmd, null, TIMEOUT);
            }
            Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(base)));
            template = data;
            return data;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot install a MariaDB data directory", e);
        }
    }

    @Override
    public ServerKind kind() {
        return ServerKind.MARIADB;
    }

    private Path pidFile() {
        return data().resolve("mariadbd.pid");
    }

    @Override
    protected void doStart() {
        // Temporary tables in a folder of its own: a shared /tmp may be cleaned under a running server
        Path tmp = dir.resolve("tmp");
        try {
            Files.createDirectories(tmp);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make " + tmp, e);
        }
        Commands.chown(tmp, osUser);
        List<String> cmd = new ArrayList<>(List.of(bin.mariadbd().toString(), "--no-defaults",
                "--datadir=" + data(), "--tmpdir=" + tmp, "--port=" + port, "--bind-address=127.0.0.1",
                "--socket=" + System.getProperty("java.io.tmpdir", "/tmp") + "/gyro-mariadb-" + port + ".sock",
                "--pid-file=" + pidFile(), "--log-error=" + log(), "--skip-name-resolve",
                "--innodb-flush-log-at-trx-commit=2", "--innodb-buffer-pool-size=64M", "--innodb-log-file-size=16M",
                "--character-set-server=utf8mb4", "--transaction-isolation=SERIALIZABLE", "--max-connections=300",
                "--performance-schema=OFF"));
        if (osUser != null) cmd.add("--user=" + osUser);
        if (password != null) cmd.add("--init-file=" + initFile());
        try {
            process = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("stdout.log").toFile()))
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + bin.mariadbd() + ": " + e.getMessage(), e);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        SQLException last = null;
        while (System.nanoTime() < deadline) {
            if (!process.isAlive())
                throw new IllegalStateException("the MariaDB server in " + dir + " did not start on port " + port
                        + " (exit " + process.exitValue() + "):\n" + Commands.tail(log(), 15));
            if (Commands.listening(port)) {
                try (Connection c = DriverManager.getConnection(adminUrl())) {
                    return;
                } catch (SQLException e) {
                    last = e;
                }
            }
            sleep(50);
        }
        process.destroyForcibly();
        throw new IllegalStateException("the MariaDB server in " + dir + " did not accept connections on port " + port
                + " within 60 s" + (last == null ? "" : " (" + last.getMessage() + ")") + ":\n"
                + Commands.tail(log(), 15));
    }

    private String adminUrl() {
        return "jdbc:mariadb://127.0.0.1:" + port + "/?user=" + USER + "&connectTimeout=2000" + passwordParameter();
    }

    @Override
    protected void doStop() {
        end(false);
    }

    @Override
    protected void doCrash() {
        end(true);
    }

    private void end(boolean kill) {
        ProcessHandle h = handle();
        if (h == null) return;
        if (kill) h.destroyForcibly();
        else h.destroy();
        try {
            h.onExit().get(kill ? 30 : 90, TimeUnit.SECONDS);
        } catch (Exception e) {
            h.destroyForcibly();
            try {
                h.onExit().get(30, TimeUnit.SECONDS);
            } catch (Exception ignored) {
                // reported below
            }
        }
        if (h.isAlive()) throw new IllegalStateException("cannot stop " + this + " (pid " + h.pid() + ")");
        process = null;
    }

    private ProcessHandle handle() {
        if (process != null && process.isAlive()) return process.toHandle();
        return fromPidFile(pidFile());
    }

    private static ProcessHandle fromPidFile(Path pidFile) {
        try {
            if (!Files.exists(pidFile)) return null;
            long pid = Long.parseLong(Files.readString(pidFile).strip());
            return ProcessHandle.of(pid).filter(ProcessHandle::isAlive)
                    .filter(h -> h.info().command().map(c -> c.contains("mariadbd") || c.contains("mysqld")).orElse(true))
                    .orElse(null);
        } catch (IOException | NumberFormatException e) {
            return null;
        }
    }

    static boolean stopAt(Path dir) {
        ProcessHandle h = fromPidFile(dir.resolve("data").resolve("mariadbd.pid"));
        if (h == null) return false;
        h.destroy();
        try {
            h.onExit().get(90, TimeUnit.SECONDS);
        } catch (Exception e) {
            h.destroyForcibly();
        }
        return true;
    }

    @Override
    public boolean isRunning() {
        return handle() != null;
    }

    @Override
    public long pid() {
        ProcessHandle h = handle();
        return h == null ? -1 : h.pid();
    }

    @Override
    public String jdbcUrl(String database) {
        return "jdbc:mariadb://127.0.0.1:" + port + "/" + checkName(database) + "?user=" + USER + passwordParameter();
    }

    private String passwordParameter() {
        return password == null ? "" : "&password=" + password;
    }

    @Override
    public void createDatabase(String name) throws SQLException {
        checkName(name);
        try (Connection c = DriverManager.getConnection(adminUrl()); Statement st = c.createStatement()) {
            st.execute("CREATE DATABASE IF NOT EXISTS `" + name + "` CHARACTER SET utf8mb4");
        }
    }

    @Override
    public void dropDatabase(String name) throws SQLException {
        checkName(name);
        try (Connection c = DriverManager.getConnection(adminUrl()); Statement st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS `" + name + "`");
        }
    }

    @Override
    public String clientCommand(String database) {
        return (password == null ? "" : "MYSQL_PWD=\"$(cut -d: -f5 " + dir.resolve(CREDENTIALS) + ")\" ")
                + "mariadb -h 127.0.0.1 -P " + port + " -u " + USER + " " + database;
    }

    private static void copyTree(Path from, Path to) {
        try (Stream<Path> all = Files.walk(from)) {
            for (Path p : all.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) Files.createDirectories(target);
                else Files.copy(p, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot copy the MariaDB data directory " + from + " to " + to, e);
        }
    }

    static void deleteTree(Path root) {
        if (!Files.exists(root)) return;
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        } catch (IOException e) {
            // best effort: a temporary directory
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the MariaDB server", e);
        }
    }
}
