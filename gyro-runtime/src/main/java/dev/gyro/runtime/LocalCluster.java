package dev.gyro.runtime;

import dev.gyro.app.Application;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntConsumer;

/**
 * N Gyro instances in this JVM, one SQLite file each, talking over real loopback sockets: what the demo and the
 * integration tests run. In production each instance is its own process ({@code gyro instance}).
 */
public final class LocalCluster implements AutoCloseable {

    private final Path dir;
    private final Application app;
    private final List<String> addresses;
    private final List<GyroInstance> instances = new ArrayList<>();

    private LocalCluster(Path dir, Application app, List<String> addresses) {
        this.dir = dir;
        this.app = app;
        this.addresses = List.copyOf(addresses);
        for (int i = 0; i < addresses.size(); i++) instances.add(null);
    }

    /**
     * Creates the databases (schema plus the application's initial data, identical on each) and picks free
     * loopback ports; does not start the instances.
     *
     * @param progress called with the number of databases loaded so far
     */
    public static LocalCluster create(Path dir, Application app, int n, int scale, long seed, IntConsumer progress)
            throws IOException, SQLException {
        Files.createDirectories(dir);
        List<String> addresses = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Path file = databaseFile(dir, i);
            try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file)) {
                c.setAutoCommit(false);
                app.createSchema(c);
                if (!app.isLoaded(c)) app.load(c, scale, seed);
                c.commit();
            }
            progress.accept(i + 1);
            addresses.add("127.0.0.1:" + freePort());
        }
        return new LocalCluster(dir, app, addresses);
    }

    public static Path databaseFile(Path dir, int instance) {
        return dir.resolve("instance-" + instance + ".db");
    }

    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        }
    }

    private dev.gyro.app.Classification classification;

    /** Runs the instances started from now on with this classification instead of the application's own. */
    public LocalCluster withClassification(dev.gyro.app.Classification classification) {
        this.classification = classification;
        return this;
    }

    public LocalCluster startAll() throws IOException {
        for (int i = 0; i < addresses.size(); i++) start(i);
        return this;
    }

    public GyroInstance start(int i) throws IOException {
        if (instances.get(i) != null) throw new IllegalStateException("instance " + i + " is running");
        InstanceConfig config = InstanceConfig.of(i, addresses, databaseFile(dir, i), app);
        if (classification != null) config = config.withClassification(classification);
        GyroInstance g = new GyroInstance(config).start();
        instances.set(i, g);
        return g;
    }

    /** Stops one instance abruptly (in-flight requests fail); its database keeps what committed. */
    public void stop(int i) {
        GyroInstance g = instances.set(i, null);
        if (g != null) g.close();
    }

    public GyroInstance instance(int i) {
        return instances.get(i);
    }

    public List<String> addresses() {
        return addresses;
    }

    public int size() {
        return addresses.size();
    }

    public Path databaseFile(int i) {
        return databaseFile(dir, i);
    }

    public Application application() {
        return app;
    }

    /**
     * Waits until the ring is quiet: every instance has applied the same last gsn and nobody waits for the token
     * (then every global update has reached every instance).
     *
     * @return true if it got quiet within the timeout
     */
    public boolean awaitQuiet(long timeoutMillis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        while (System.currentTimeMillis() < deadline) {
            long gsn = -1;
            boolean quiet = true;
            int parked = 0;
            for (GyroInstance g : instances) {
                if (g == null) continue;
                if (gsn < 0) gsn = g.appliedGsn();
                if (g.appliedGsn() != gsn) quiet = false;
                if (g.role().equals("PARKED")) parked++;
            }
            if (quiet && parked == 1) return true;
            Thread.sleep(20);
        }
        return false;
    }

    @Override
    public void close() {
        for (int i = 0; i < instances.size(); i++) stop(i);
    }
}
