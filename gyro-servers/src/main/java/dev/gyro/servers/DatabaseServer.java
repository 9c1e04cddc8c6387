package dev.gyro.servers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;
import java.util.regex.Pattern;

/**
 * One throwaway database server: initialised into a directory of its own, listening only on loopback, on a port
 * that was free when it was created ({@link #port()}; the same port across {@link #stop()} and {@link #start()}).
 * It never uses the standard ports, so servers already running on the machine are left alone.
 *
 * <p>A started server is stopped when this JVM exits (a shutdown hook), unless {@link #stop()} or {@link #crash()}
 * ran first; a server left behind by a process that was killed can be stopped with {@link #stopAt}.
 *
 * <p>Thread-safe: start, stop and crash are serialised.
 */
public abstract sealed class DatabaseServer implements AutoCloseable permits PostgresServer, MariaDbServer {

    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

    protected final Path dir;
    /** Its port: chosen free when the server is created, moved at its first start if another program took it since. */
    protected volatile int port;
    /** Whether it was ever started: from then on its port is known to others and stays. */
    private boolean started;
    /** The system user the server runs as ({@link Commands#serverUser}; null: this process's user). */
    protected final String osUser;
    private Thread shutdownHook;

    protected DatabaseServer(Path dir, int port, String osUser) {
        this.dir = dir.toAbsolutePath();
        this.port = port;
        this.osUser = osUser;
    }

    /** {@code dir}, absolute, created if missing: where {@code create} puts a server. */
    static Path createDirectory(Path dir) {
        Path abs = dir.toAbsolutePath();
        try {
            Files.createDirectories(abs);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + abs, e);
        }
        return abs;
    }

    /**
     * A server of {@code kind} in {@code dir}: initialised there if the directory holds no server yet (created if
     * missing), to listen on a free loopback port. Not started.
     *
     * @throws MissingServerException when the server programs are not installed (the message names the package)
     * @throws IllegalStateException  when the directory cannot be initialised
     */
    public static DatabaseServer create(ServerKind kind, Path dir) {
        return switch (kind) {
            case POSTGRES -> PostgresServer.create(dir, Commands.freePort());
            case MARIADB -> MariaDbServer.create(dir, Commands.freePort());
        };
    }

    /**
     * Stops the server of {@code kind} whose directory is {@code dir}, if one runs there (one left behind by a
     * process that is gone, say). Returns whether one was running.
     */
    public static boolean stopAt(ServerKind kind, Path dir) {
        return switch (kind) {
            case POSTGRES -> PostgresServer.stopAt(dir.toAbsolutePath());
            case MARIADB -> MariaDbServer.stopAt(dir.toAbsolutePath());
        };
    }

    /** Stops whatever server runs in {@code dir}, of either kind; returns whether one was running. */
    public static boolean stopAnyAt(Path dir) {
        boolean stopped = false;
        for (ServerKind kind : ServerKind.values()) {
            try {
                stopped |= stopAt(kind, dir);
            } catch (RuntimeException e) {
                // not a server of that kind, or its programs are gone: nothing of that kind runs there
            }
        }
        return stopped;
    }

    /**
     * The file in a server's directory with the password of the user Gyro connects as: one line
     * {@code 127.0.0.1:*:*:USER:PASSWORD} (the password-file format of {@code psql}), readable and writable by the user
     * who made the server alone (mode 0600). A server made before passwords has none.
     */
    public static final String CREDENTIALS = "credentials";
    private static final String ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";

    /** A new random password (32 letters and digits, about 186 bits). */
    static String newPassword() {
        java.security.SecureRandom random = new java.security.SecureRandom();
        StringBuilder p = new StringBuilder();
        for (int i = 0; i < 32; i++) p.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
        return p.toString();
    }

    /** The password in {@code dir}'s {@link #CREDENTIALS} file, or null when there is none. */
    static String readPassword(Path dir) {
        Path file = dir.resolve(CREDENTIALS);
        if (!Files.exists(file)) return null;
        try {
            for (String line : Files.readAllLines(file, java.nio.charset.StandardCharsets.UTF_8)) {
                String[] f = line.strip().split(":", 5); // host:port:database:user:password
                if (f.length == 5) return f[4];
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
        throw new IllegalStateException(file + " holds no password");
    }

    /** {@code text} in a new file {@code file}, readable and writable by its owner alone from the start (0600). */
    static void writePrivate(Path file, String text) throws IOException {
        Files.deleteIfExists(file);
        Files.createFile(file, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                java.nio.file.attribute.PosixFilePermissions.fromString("rw-------")));
        Files.writeString(file, text, java.nio.charset.StandardCharsets.UTF_8);
    }

    /** Keeps {@code user}'s {@code password} in this server's {@link #CREDENTIALS} file, owned by this process's user. */
    protected void writeCredentials(String user, String password) throws IOException {
        writePrivate(dir.resolve(CREDENTIALS), "127.0.0.1:*:*:" + user + ":" + password + "\n");
    }

    /**
     * {@code shownUrl}, a JDBC URL of a server in {@code serverDirectory} whose password was hidden
     * ({@code password=***}, as {@code cluster.json} and the logs show it), with the password kept in that directory
     * ({@link #CREDENTIALS}, readable only by the user who made the server); unchanged when nothing is
     * hidden or the directory keeps no password.
     */
    public static String withPassword(String shownUrl, Path serverDirectory) {
        if (!shownUrl.contains("password=***")) return shownUrl;
        String password = readPassword(serverDirectory.toAbsolutePath());
        return password == null ? shownUrl : shownUrl.replace("password=***", "password=" + password);
    }

    public abstract ServerKind kind();

    /** The server's own directory (its data directory and log are inside). */
    public Path directory() {
        return dir;
    }

    public int port() {
        return port;
    }

    /** The server's log file. */
    public Path log() {
        return dir.resolve("server.log");
    }

    /** The server's data directory, inside its own directory. */
    protected Path data() {
        return dir.resolve("data");
    }

    /**
     * Gives the server's directory to {@link #osUser} and checks that user can write in it, before the data
     * directory is initialised there: a server run as another user fails later, and less clearly, otherwise.
     */
    protected void prepareDirectory() {
        Commands.chown(dir, osUser);
        Commands.checkAccess(dir, osUser);
    }

    /**
     * Starts the server and waits until it accepts connections; a no-op when it is running.
     *
     * @throws IllegalStateException with the end of the server's log when it does not come up
     */
    public final synchronized DatabaseServer start() {
        if (isRunning()) return this;
        // The port was free when the server was created; another program (a test JVM beside this one, a server of its
        // own) may have taken it since. Before its first start nobody knows the port yet: the server moves to another.
        for (int moves = 0; Commands.listening(port); moves++) {
            if (started || moves == 3)
                throw new IllegalStateException("cannot start " + this + ": port " + port + " is taken by another program");
            port = Commands.freePort();
        }
        started = true;
        doStart();
        if (shutdownHook == null) {
            shutdownHook = new Thread(this::stopQuietly, "gyro-stop-" + kind().label() + "-" + port);
            Runtime.getRuntime().addShutdownHook(shutdownHook);
        }
        return this;
    }

    /** Stops the server cleanly and waits until it is gone; a no-op when it is not running. */
    public final synchronized void stop() {
        removeHook();
        if (isRunning()) doStop();
    }

    /**
     * Stops the server the way a crash would: no clean shutdown, so the next start recovers from the server's log
     * (PostgreSQL: an immediate shutdown; MariaDB: SIGKILL). Waits until it is gone.
     */
    public final synchronized void crash() {
        removeHook();
        if (isRunning()) doCrash();
    }

    /** True while the server's process is alive. */
    public abstract boolean isRunning();

    /** The server's process id, or -1 when it is not running. */
    public abstract long pid();

    /** True when process {@code pid} runs (not counting one that exited and waits to be reaped). */
    public static boolean processAlive(long pid) {
        return Commands.alive(pid);
    }

    /** The JDBC URL of database {@code database} on this server (with the user Gyro connects as). */
    public abstract String jdbcUrl(String database);

    /** Creates database {@code name} unless it exists. The server must be running. */
    public abstract void createDatabase(String name) throws SQLException;

    /** Drops database {@code name} if it exists. */
    public abstract void dropDatabase(String name) throws SQLException;

    /** A shell command that opens the server's own client on {@code database}, for people. */
    public abstract String clientCommand(String database);

    /** Starts the server, whose port {@link #start()} found free, and waits until it accepts connections. */
    protected abstract void doStart();

    protected abstract void doStop();

    protected abstract void doCrash();

    /** Stops the server. */
    @Override
    public void close() {
        stop();
    }

    private void removeHook() {
        if (shutdownHook != null && Thread.currentThread() != shutdownHook) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException exiting) {
                // the JVM is shutting down: the hook runs or has run
            }
        }
        shutdownHook = null;
    }

    private static final List<java.util.concurrent.Future<?>> EXIT_HOLDS = new java.util.concurrent.CopyOnWriteArrayList<>();

    /**
     * Servers the JVM's exit stops wait first until {@code work} is done (at most five minutes): for a shutdown hook of
     * the program's own that still asks its databases something, such as the checks at an attached application's exit.
     */
    public static void holdAtExit(java.util.concurrent.Future<?> work) {
        EXIT_HOLDS.add(work);
    }

    /** Waits for the work {@link #holdAtExit} named; it may have failed, the servers stop all the same. */
    static void awaitExitHolds() {
        for (java.util.concurrent.Future<?> work : EXIT_HOLDS) {
            try {
                work.get(5, java.util.concurrent.TimeUnit.MINUTES);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException
                     | java.util.concurrent.CancellationException e) {
                // stop anyway
            }
        }
    }

    private void stopQuietly() {
        awaitExitHolds();
        try {
            if (isRunning()) doStop();
        } catch (RuntimeException e) {
            System.err.println("gyro: could not stop " + this + ": " + e.getMessage());
        }
    }

    static String checkName(String name) {
        if (name == null || !NAME.matcher(name).matches())
            throw new IllegalArgumentException("not a database name Gyro creates: '" + name
                    + "' (letters, digits and _, starting with a letter or _)");
        return name;
    }

    @Override
    public String toString() {
        return kind().label() + " server on 127.0.0.1:" + port + " in " + dir;
    }
}
