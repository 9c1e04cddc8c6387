package dev.gyro.cluster;

import dev.gyro.runtime.GyroInstance;
import dev.gyro.runtime.InstanceConfig;
import dev.gyro.emulation.Capacity;

import dev.gyro.app.Application;
import dev.gyro.runtime.db.Dialect;
import dev.gyro.emulation.wan.Wan;
import dev.gyro.emulation.wan.WanLinks;
import dev.gyro.servers.DatabaseServer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;

/**
 * N Gyro instances in this JVM, talking over real loopback sockets, each on its own database: what the demo, the
 * {@code gyro cluster} command and the integration tests run. In production each instance is its own process
 * ({@code gyro instance}).
 *
 * <p>The databases are, per backend: one SQLite file each in the cluster's directory; one throwaway
 * PostgreSQL or MariaDB server each, initialised in the directory and started on a free loopback port (stopped
 * again by {@link #close()}); or existing databases given by JDBC URL ({@link #attach}), which are left running.
 */
public final class LocalCluster implements AutoCloseable {

    /** The database each throwaway server holds for its instance. */
    public static final String DATABASE = "gyro";

    private final Path dir;
    private final Application app;
    private final Backend backend;
    private List<String> addresses;
    private final List<String> targets; // per instance: the SQLite file, or a JDBC URL
    private final List<DatabaseServer> servers; // the servers this cluster started (empty: none)
    /** The map the ring started with, which instances that join later start from too (decision 44). */
    private final dev.gyro.protocol.PartitionMap firstMap;
    private final List<GyroInstance> instances = new ArrayList<>();
    private final List<Capacity> capacities = new ArrayList<>();

    private LocalCluster(Path dir, Application app, Backend backend, List<String> addresses, List<String> targets,
                         List<DatabaseServer> servers) {
        this.dir = dir;
        this.app = app;
        this.backend = backend;
        this.addresses = List.copyOf(addresses);
        this.firstMap = dev.gyro.protocol.PartitionMap.uniform(addresses.size());
        this.targets = new ArrayList<>(targets);
        this.servers = new ArrayList<>(servers);
        for (int i = 0; i < addresses.size(); i++) {
            instances.add(null);
            capacities.add(null);
        }
    }

    /**
     * SQLite: {@link #create(Backend, Path, Application, int, int, long, IntConsumer)} with {@link Backend#SQLITE}.
     */
    public static LocalCluster create(Path dir, Application app, int n, int scale, long seed, IntConsumer progress)
            throws IOException, SQLException {
        return create(Backend.SQLITE, dir, app, n, scale, seed, progress);
    }

    /**
     * Creates the databases (schema plus the application's initial data, identical on each) and picks free
     * loopback ports; does not start the instances. For PostgreSQL and MariaDB this initialises and starts one
     * server per instance in {@code dir/server-I} (reusing a server directory that is already there, so a cluster
     * can be started again on its data); for SQLite it creates {@code dir/instance-I.db}.
     *
     * @param progress called with the number of databases loaded so far
     * @throws dev.gyro.servers.MissingServerException when the backend's server is not installed
     */
    public static LocalCluster create(Backend backend, Path dir, Application app, int n, int scale, long seed,
                                      IntConsumer progress) throws IOException, SQLException {
        Files.createDirectories(dir);
        List<String> targets = new ArrayList<>();
        List<DatabaseServer> servers = new ArrayList<>();
        if (backend == Backend.SQLITE) {
            for (int i = 0; i < n; i++) targets.add(databaseFile(dir, i).toString());
        } else {
            servers.addAll(Collections.nCopies(n, null));
            try {
                // initdb and server start-up dominate: do them side by side
                java.util.stream.IntStream.range(0, n).parallel().forEach(i -> {
                    DatabaseServer s = DatabaseServer.create(backend.serverKind(), serverDirectory(dir, i)).start();
                    synchronized (servers) {
                        servers.set(i, s);
                    }
                });
                for (DatabaseServer s : servers) {
                    s.createDatabase(DATABASE);
                    targets.add(s.jdbcUrl(DATABASE));
                }
            } catch (RuntimeException | SQLException e) {
                for (DatabaseServer s : servers) if (s != null) s.stop();
                throw e;
            }
        }
        try {
            load(app, targets, scale, seed, progress);
        } catch (SQLException | RuntimeException e) {
            for (DatabaseServer s : servers) s.stop();
            throw e;
        }
        return new LocalCluster(dir, app, backend, freeAddresses(n), targets, servers);
    }

    /**
     * A cluster over existing databases, one JDBC URL per instance (all of one backend): loads the application's
     * initial data where it is not loaded yet. {@link #close()} leaves the databases' servers running.
     */
    public static LocalCluster attach(List<String> jdbcUrls, Application app, int scale, long seed, IntConsumer progress)
            throws IOException, SQLException {
        if (jdbcUrls.isEmpty()) throw new IllegalArgumentException("no databases to attach to");
        Backend backend = Backend.ofTarget(jdbcUrls.get(0));
        for (String u : jdbcUrls)
            if (Backend.ofTarget(u) != backend)
                throw new IllegalArgumentException("all instances of a cluster use one backend: " + jdbcUrls.get(0)
                        + " is " + backend + " but " + u + " is " + Backend.ofTarget(u));
        List<String> targets = new ArrayList<>();
        for (String u : jdbcUrls) targets.add(backend.dialect().jdbcUrl(u));
        load(app, targets, scale, seed, progress);
        return new LocalCluster(null, app, backend, freeAddresses(jdbcUrls.size()), targets, List.of());
    }

    private static void load(Application app, List<String> targets, int scale, long seed, IntConsumer progress)
            throws SQLException {
        AtomicInteger done = new AtomicInteger();
        SQLException[] failure = new SQLException[1];
        java.util.stream.IntStream.range(0, targets.size()).parallel().forEach(i -> {
            try (Connection c = DriverManager.getConnection(jdbcUrlOf(targets.get(i)))) {
                c.setAutoCommit(false);
                app.createSchema(c);
                if (!app.isLoaded(c)) app.load(c, scale, seed);
                c.commit();
                progress.accept(done.incrementAndGet());
            } catch (SQLException e) {
                synchronized (failure) {
                    failure[0] = new SQLException("cannot load the database of instance " + i + ": " + e.getMessage(),
                            e.getSQLState(), e.getErrorCode(), e);
                }
            }
        });
        if (failure[0] != null) throw failure[0];
    }

    private static String jdbcUrlOf(String target) {
        return Dialect.forTarget(target).jdbcUrl(target);
    }

    private static List<String> freeAddresses(int n) throws IOException {
        List<String> addresses = new ArrayList<>();
        for (int port : dev.gyro.servers.FreePorts.take(n)) addresses.add("127.0.0.1:" + port);
        return addresses;
    }

    public static Path databaseFile(Path dir, int instance) {
        return dir.resolve("instance-" + instance + ".db");
    }

    /** Where the throwaway server of instance {@code instance} lives. */
    public static Path serverDirectory(Path dir, int instance) {
        return dir.resolve("server-" + instance);
    }

    /** A free port for one more server ({@link dev.gyro.servers.FreePorts}: outside the ephemeral range). */
    public static int freePort() throws IOException {
        return dev.gyro.servers.FreePorts.take();
    }

    private dev.gyro.app.Classification classification;
    private java.util.function.UnaryOperator<InstanceConfig> customize = c -> c;

    /** Adjusts the configuration of each instance started from now on (thread counts, queue bounds, hooks). */
    private dev.gyro.wire.tls.TlsFiles tls;

    /**
     * Every instance talks mutual TLS with its certificate from {@code files} ({@code instance-I}), so only holders of
     * the cluster's certificates reach it; clients need the cluster's client certificate ({@link #clientTransport}).
     */
    public LocalCluster withTls(dev.gyro.wire.tls.TlsFiles files) {
        this.tls = files;
        return this;
    }

    /** How a client reaches this cluster: with its client certificate under TLS, else plaintext. */
    public dev.gyro.wire.Transport clientTransport() {
        return tls == null ? dev.gyro.wire.Transport.insecure()
                : dev.gyro.wire.Transport.mutualTls(tls, dev.gyro.wire.tls.Certificates.CLIENT);
    }

    private List<String> http;

    /**
     * Each instance started from now on serves its metrics, status and live view over HTTP on a free loopback port,
     * the same one across restarts ({@link #httpAddresses()}).
     */
    public LocalCluster withHttp() throws IOException {
        if (http == null) {
            List<String> a = new ArrayList<>();
            for (int port : dev.gyro.servers.FreePorts.take(size())) a.add("127.0.0.1:" + port);
            http = List.copyOf(a);
        }
        return this;
    }

    /** host:port of each instance's HTTP endpoint, or null without {@link #withHttp()}. */
    public List<String> httpAddresses() {
        return http;
    }

    public LocalCluster withInstanceConfig(java.util.function.UnaryOperator<InstanceConfig> customize) {
        this.customize = customize;
        return this;
    }

    /** Runs the instances started from now on with this classification instead of the application's own. */
    public LocalCluster withClassification(dev.gyro.app.Classification classification) {
        this.classification = classification;
        return this;
    }

    private Capacity capacity = Capacity.PLAIN;

    /**
     * Gives each instance started from now on an emulated server of this size (its own copy: each instance is its
     * own small server), for benchmarks; {@link Capacity#PLAIN} by default.
     */
    public LocalCluster withCapacity(Capacity capacity) {
        this.capacity = capacity == null ? Capacity.PLAIN : capacity;
        return this;
    }

    private Wan.Placement wan;

    /**
     * Places the instances started from now on on an emulated WAN (benchmarks; {@link Wan}): every message between
     * two instances is delayed by its link's one-way delay. Call it before {@link #startAll()}. {@link Wan#OFF}'s
     * placement, the default, delays nothing and creates no scheduler.
     *
     * @param placement where each instance sits: {@code Wan.paper().place(size())} for the paper's sites in order
     */
    public LocalCluster withWan(Wan.Placement placement) {
        if (placement != null && placement.instances() != size())
            throw new IllegalArgumentException("the WAN placement places " + placement.instances()
                    + " instances but the cluster has " + size());
        this.wan = placement;
        return this;
    }

    /** Where the instances sit: the placement given to {@link #withWan}, or {@link Wan#OFF}'s. */
    public Wan.Placement wan() {
        return wan != null ? wan : Wan.OFF.place(size());
    }

    /**
     * The instances' addresses, one per instance in ring order, instead of the free loopback ports picked at
     * creation; only before any instance starts.
     */
    public LocalCluster withAddresses(List<String> ring) {
        if (ring.size() != addresses.size())
            throw new IllegalArgumentException(ring.size() + " addresses for " + addresses.size() + " instances");
        if (instances.stream().anyMatch(java.util.Objects::nonNull))
            throw new IllegalStateException("instances already run at " + addresses);
        this.addresses = List.copyOf(ring);
        return this;
    }

    public LocalCluster startAll() throws IOException {
        for (int i = 0; i < addresses.size(); i++) start(i);
        return this;
    }

    public GyroInstance start(int i) throws IOException {
        if (instances.get(i) != null) throw new IllegalStateException("instance " + i + " is running");
        InstanceConfig config = InstanceConfig.of(i, addresses, targets.get(i), app).withPartitionMap(firstMap)
                .withHttp(http == null || i >= http.size() ? null : http.get(i));
        if (classification != null) config = config.withClassification(classification);
        Capacity server = capacity.copy(); // each instance is its own small server
        capacities.set(i, server);
        config = config.withGate(server);
        if (wan != null) config = config.withLinks(WanLinks.factory(wan));
        InstanceConfig c = customize.apply(config);
        if (tls != null)
            c = c.withNetwork(new InstanceConfig.Network(dev.gyro.wire.Transport.mutualTls(tls,
                    dev.gyro.wire.Transport.instanceIdentity(c.self())), c.network().bind(), null));
        GyroInstance g = new GyroInstance(c).start();
        instances.set(i, g);
        return g;
    }

    /**
     * Adds an instance to the running ring (docs/decisions/44-ring-changes.md): the join runs in the token's round at
     * an instance that holds it, the new instance's database is a copy of that instance's once it made the join (rows,
     * gsn, map and ring), and the new instance starts on it and waits for the token. It
     * owns no bucket until some are moved to it ({@code GyroClient.moveBuckets}). On PostgreSQL and MariaDB the new
     * instance gets a throwaway server of its own and a copy through JDBC ({@code JoinerCopy}).
     *
     * @return the new instance
     * @throws IllegalStateException when the ring refused the join (its reply says why)
     */
    public synchronized GyroInstance addInstance() throws IOException, SQLException {
        // the new instance's database first (a server of its own on PostgreSQL and MariaDB), so a failure there
        // leaves the ring as it was
        NewDatabase made = newDatabase(addresses.size());
        try {
            return addInstance(made.target(), made.server());
        } catch (IOException | SQLException | RuntimeException e) {
            if (made.server() != null) made.server().stop();
            throw e;
        }
    }

    /**
     * {@code count} more databases, new and empty, numbered on after this cluster's (SQLite files in its folder, or a
     * throwaway server each on PostgreSQL and MariaDB, stopped with the cluster): for the replicas of a group that joins
     * a ring of replicated groups whose databases this cluster holds. {@link #jdbcUrl} and {@link #server} number them
     * on.
     */
    public synchronized List<String> moreDatabases(int count) throws IOException, SQLException {
        List<String> made = new ArrayList<>();
        for (int k = 0; k < count; k++) {
            NewDatabase d = newDatabase(targets.size());
            if (d.server() != null) servers.add(d.server());
            targets.add(d.target());
            made.add(d.target());
        }
        return made;
    }

    private record NewDatabase(String target, DatabaseServer server) {}

    private NewDatabase newDatabase(int k) throws IOException, SQLException {
        if (dir == null) throw new UnsupportedOperationException("this cluster runs on databases it was given: give"
                + " the new instance's database too (addInstance(target))");
        if (backend == Backend.SQLITE) return new NewDatabase(databaseFile(dir, k).toString(), null);
        DatabaseServer server = DatabaseServer.create(backend.serverKind(), serverDirectory(dir, k)).start();
        try {
            server.createDatabase(DATABASE);
            return new NewDatabase(server.jdbcUrl(DATABASE), server);
        } catch (SQLException | RuntimeException e) {
            server.stop();
            throw e;
        }
    }

    /**
     * {@link #addInstance()} on {@code target}, a new, empty database (a SQLite file, or a JDBC URL on this cluster's
     * DBMS), for a cluster on databases it was given.
     */
    public synchronized GyroInstance addInstance(String target) throws IOException, SQLException {
        if (Dialect.forTarget(target) != backend.dialect())
            throw new IllegalArgumentException("the new instance's database must be on " + backend.label() + " like the"
                    + " cluster's, not " + target.replaceAll("\\?.*", ""));
        return addInstance(backend.dialect().jdbcUrl(target), null);
    }

    private GyroInstance addInstance(String target, DatabaseServer server) throws IOException, SQLException {
        int id = addresses.size();
        String address = freeAddresses(1).get(0);
        GyroInstance entry = instances.stream().filter(java.util.Objects::nonNull).findFirst()
                .orElseThrow(() -> new IllegalStateException("no instance runs to take the join"));
        dev.gyro.wire.Reply joined = entry.call(dev.gyro.wire.RingRequest.join(address, id));
        if (joined.status() != dev.gyro.wire.Reply.Status.OK) {
            throw new IllegalStateException("the ring refused instance " + id + " at " + address + ": "
                    + joined.status() + ": " + joined.message());
        }
        int maker = joined.instance(); // it applied the join: it made it
        try {
            dev.gyro.runtime.db.JoinerCopy.make(targets.get(maker), target, id, app::createSchema, 60_000, line -> {});
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while copying instance " + maker + "'s database", e);
        }
        if (server != null) servers.add(server);
        List<String> more = new ArrayList<>(addresses);
        more.add(address);
        addresses = List.copyOf(more);
        targets.add(target);
        instances.add(null);
        capacities.add(null);
        return start(id);
    }

    /**
     * Takes instance {@code id} out of the running ring (docs/decisions/44-ring-changes.md), once it owns no bucket: the
     * leave runs in the token's round at another instance; once {@code id} applied it, it is stopped.
     *
     * @throws IllegalStateException when the ring refused the leave (its reply says why)
     */
    public synchronized void removeInstance(int id) throws InterruptedException {
        GyroInstance entry = null;
        for (int i = 0; i < instances.size(); i++) if (i != id && instances.get(i) != null) entry = instances.get(i);
        if (entry == null) throw new IllegalStateException("no other instance runs to take the leave of " + id);
        dev.gyro.wire.Reply left = entry.call(dev.gyro.wire.RingRequest.leave(id));
        if (left.status() != dev.gyro.wire.Reply.Status.OK)
            throw new IllegalStateException("the ring refused the leave of instance " + id + ": " + left.status() + ": "
                    + left.message());
        GyroInstance leaving = instances.get(id);
        long deadline = System.currentTimeMillis() + 60_000;
        while (leaving != null && leaving.appliedGsn() < left.gsn() && System.currentTimeMillis() < deadline)
            Thread.sleep(5);
        stop(id);
    }

    /** The emulated server instance {@code i} was last started with ({@link Capacity#PLAIN} if none). */
    public Capacity capacity(int i) {
        Capacity c = capacities.get(i);
        return c == null ? Capacity.PLAIN : c;
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

    public Backend backend() {
        return backend;
    }

    /** The SQLite file of instance {@code i}. */
    public Path databaseFile(int i) {
        if (backend != Backend.SQLITE) throw new IllegalStateException("a " + backend + " cluster has no database files");
        return Path.of(targets.get(i));
    }

    /** The JDBC URL of instance {@code i}'s database (for SQLite: {@code jdbc:sqlite:FILE}). */
    public String jdbcUrl(int i) {
        return jdbcUrlOf(targets.get(i));
    }

    /** A plain connection to instance {@code i}'s database, outside Gyro (checkers read the databases directly). */
    public Connection connect(int i) throws SQLException {
        return DriverManager.getConnection(jdbcUrl(i));
    }

    /** The server of instance {@code i}, or null when this cluster started none (SQLite, attached databases). */
    public DatabaseServer server(int i) {
        return servers.isEmpty() ? null : servers.get(i);
    }

    /** The servers this cluster started, in instance order (empty for SQLite and attached databases). */
    public List<DatabaseServer> servers() {
        return Collections.unmodifiableList(servers);
    }

    /** The cluster's directory (null for attached databases). */
    public Path directory() {
        return dir;
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

    /** Stops the instances, then the servers this cluster started (their data stays in the directory). */
    @Override
    public void close() {
        for (int i = 0; i < instances.size(); i++) stop(i);
        RuntimeException failure = null;
        for (DatabaseServer s : servers) {
            try {
                s.stop();
            } catch (RuntimeException e) {
                failure = e;
            }
        }
        if (failure != null) throw failure;
    }
}
