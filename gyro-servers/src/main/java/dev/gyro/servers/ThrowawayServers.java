package dev.gyro.servers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * Throwaway servers for tests: started on first use on free loopback ports (never the servers that may run on
 * 5432/3306), shared by everything in this JVM, and stopped and removed when it exits. Each caller works in
 * databases of its own ({@link #freshDatabase}); one that stops or crashes a server takes a private one
 * ({@link #privateServer}). Whether a missing server skips or fails a test is the test's decision:
 * {@link ServerKind#unavailableReason()} says why it is missing.
 *
 * <p>Thread-safe.
 */
public final class ThrowawayServers {

    private static final Map<ServerKind, List<DatabaseServer>> SHARED = new EnumMap<>(ServerKind.class);
    private static final List<DatabaseServer> ALL = new ArrayList<>();
    private static final AtomicInteger NAMES = new AtomicInteger();
    private static Path base;

    private ThrowawayServers() {}

    /**
     * Shared server {@code index} of {@code kind}, started on first use.
     *
     * @throws MissingServerException when the server's programs are not installed
     */
    public static synchronized DatabaseServer shared(ServerKind kind, int index) {
        List<DatabaseServer> list = SHARED.computeIfAbsent(kind, k -> new ArrayList<>());
        while (list.size() <= index) {
            DatabaseServer s = DatabaseServer.create(kind, base().resolve(kind.label() + "-shared-" + list.size()));
            ALL.add(s);
            list.add(s.start());
        }
        DatabaseServer s = list.get(index);
        if (!s.isRunning()) s.start();
        return s;
    }

    /** A new database with a unique name (starting with {@code t}) on shared server {@code index}: its JDBC URL. */
    public static String freshDatabase(ServerKind kind, int index) {
        DatabaseServer s = shared(kind, index);
        String name = "t" + NAMES.incrementAndGet();
        try {
            s.createDatabase(name);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create database " + name + " on " + s + ": " + e.getMessage(), e);
        }
        return s.jdbcUrl(name);
    }

    /** A server of {@code kind} for one caller alone, started; the caller may stop, crash and close it. */
    public static synchronized DatabaseServer privateServer(ServerKind kind) {
        DatabaseServer s = DatabaseServer.create(kind, base().resolve(kind.label() + "-private-" + NAMES.incrementAndGet()));
        ALL.add(s);
        return s.start();
    }

    /**
     * A directory the servers' system users can reach (as root, servers run as {@code postgres}/{@code mysql}),
     * removed when the JVM exits, after its servers stopped.
     */
    public static synchronized Path base() {
        if (base != null) return base;
        try {
            base = Files.createTempDirectory("gyro-servers");
            Files.setPosixFilePermissions(base, PosixFilePermissions.fromString("rwxr-xr-x"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Path dir = base;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            DatabaseServer.awaitExitHolds();
            List<DatabaseServer> servers;
            synchronized (ThrowawayServers.class) {
                servers = new ArrayList<>(ALL);
            }
            servers.parallelStream().forEach(s -> {
                try {
                    s.stop();
                } catch (RuntimeException e) {
                    System.err.println("could not stop " + s + ": " + e.getMessage());
                }
            });
            try (Stream<Path> all = Files.walk(dir)) {
                for (Path p : all.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
            } catch (IOException ignored) {
                // a temporary directory
            }
        }, "gyro-throwaway-servers"));
        return base;
    }
}
