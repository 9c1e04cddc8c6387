package dev.gyro.replication;

import dev.gyro.runtime.GyroInstance;
import dev.gyro.runtime.InstanceConfig;
import dev.gyro.runtime.db.Database;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.SQLException;

/**
 * One replica of a Gyro instance (the paper's Section III: "each Gyro instance replica is associated with a replica of
 * the DBMS instance"; docs/decisions/24-ring-on-groups.md): a {@link GroupReplica} of its ring position's group and,
 * while that replica leads the group, the position's {@link GyroInstance} on the replica's database, listening on the
 * replica's own address.
 *
 * <p>Only the leader listens, so clients and peers, which address a group by all its replicas' addresses, reach the
 * leader ({@code Transport.channel}). The instance's write transactions commit through the group's log
 * ({@link Database#replicatedBy}). When the replica stops leading, its instance stops; when it leads (again), a new
 * instance recovers the belt from the database, which then holds everything the group committed: the Conveyor Belt's
 * crash recovery ({@code DurableState}) is its failover. An instance that stops itself (fail-stop, decision 11; or a
 * write whose outcome its group could not settle) is started again the same way.
 *
 * <p>A watcher thread does the starting and stopping, woken by the group's events.
 */
public final class InstanceReplica implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(InstanceReplica.class);

    private final GroupReplica replica;
    private final InstanceConfig config;
    private final Database view;
    private final GroupSignal signal;
    private final Thread watcher;
    private volatile GyroInstance instance; // started and serving
    private volatile GyroInstance starting; // being started: close() stops it too
    private volatile GyroInstance prepared; // built ahead while this replica follows (prepare)
    private boolean prepareFailed; // the watcher's
    private volatile boolean instanceFailed;
    private volatile boolean closed;

    private InstanceReplica(GroupReplica replica, InstanceConfig config, GroupSignal signal) {
        this.replica = replica;
        this.signal = signal;
        this.config = config.withFailStop((self, reason, cause) -> {
            instanceFailed = true;
            signal.changed();
        });
        this.view = replica.database().replicatedBy(replica);
        this.watcher = new Thread(this::watch, "gyro-" + config.self() + "-replica-" + replica.replica() + "-watch");
        this.watcher.setDaemon(true);
    }

    /**
     * Starts replica {@code r} of ring position {@code config.self()}: prepares its database (schema, metadata, the
     * cluster's and the group's stamps; refused when it belongs to another cluster, group or replica), starts its Ratis
     * server with its log under {@code logDir}, and runs the position's instance whenever it leads.
     *
     * @param config   the position's instance: its ring addresses are the groups' ({@code A+B+C}); {@code listen} is
     *                 set here to {@code gyroAddress}
     * @param database this replica's database (a SQLite file or a JDBC URL)
     */
    public static InstanceReplica start(GroupSpec spec, int r, String database, Path logDir, InstanceConfig config,
                                        String gyroAddress) throws SQLException, IOException {
        return start(spec, r, database, logDir, config, gyroAddress, new GroupSignal());
    }

    static InstanceReplica start(GroupSpec spec, int r, String database, Path logDir, InstanceConfig config,
                                 String gyroAddress, GroupSignal signal) throws SQLException, IOException {
        return start(spec, r, database, logDir, config, gyroAddress, signal, null);
    }

    /**
     * As above, rebuilding from a copy of {@code rebuildFrom}'s database when it falls behind its group's purged log
     * (docs/decisions/45-database-as-snapshot.md); null: it stops then.
     */
    static InstanceReplica start(GroupSpec spec, int r, String database, Path logDir, InstanceConfig config,
                                 String gyroAddress, GroupSignal signal,
                                 java.util.function.Supplier<dev.gyro.runtime.db.Database> rebuildFrom)
            throws SQLException, IOException {
        return start(spec, r, database, logDir, config, gyroAddress, signal, rebuildFrom, false);
    }

    /**
     * A new member in place {@code r} of its group, on the addresses {@code spec} and {@code gyroAddress} give it, with
     * a new database and log (docs/decisions/47-new-member.md): it knows no member until its group asks it in
     * ({@link GroupReplica#replaceMember}, {@link MemberRequest}), and catches up from its leader's log. Run as a process
     * of its own: no other replica here to rebuild from.
     */
    public static InstanceReplica join(GroupSpec spec, int r, String database, Path logDir, InstanceConfig config,
                                       String gyroAddress) throws SQLException, IOException {
        return join(spec, r, database, logDir, config, gyroAddress, new GroupSignal(), null);
    }

    /** As above, rebuilding from a copy of {@code rebuildFrom}'s database where the leader's log was purged. */
    static InstanceReplica join(GroupSpec spec, int r, String database, Path logDir, InstanceConfig config,
                                String gyroAddress, GroupSignal signal,
                                java.util.function.Supplier<dev.gyro.runtime.db.Database> rebuildFrom)
            throws SQLException, IOException {
        return start(spec, r, database, logDir, config, gyroAddress, signal, rebuildFrom, true);
    }

    private static InstanceReplica start(GroupSpec spec, int r, String database, Path logDir, InstanceConfig config,
                                         String gyroAddress, GroupSignal signal,
                                         java.util.function.Supplier<dev.gyro.runtime.db.Database> rebuildFrom,
                                         boolean joining) throws SQLException, IOException {
        if (spec.position() != config.self())
            throw new IllegalArgumentException(spec.name() + " is ring position " + spec.position() + ", but the"
                    + " instance's configuration is of instance " + config.self());
        InstanceConfig own = config.withListen(gyroAddress);
        dev.gyro.runtime.db.SqlWork<?> prepare = c -> {
            GyroInstance.prepare(c, own);
            return null;
        };
        GroupReplica g = joining ? GroupReplica.join(spec, r, database, logDir, signal, prepare, rebuildFrom)
                : GroupReplica.start(spec, r, database, logDir, signal, prepare, rebuildFrom);
        InstanceReplica ir = new InstanceReplica(g, own, signal);
        ir.watcher.start();
        // A follower has never run what its instance needs once it leads: loaded now, not in the failover
        // (docs/decisions/41-failover-on-a-loaded-machine.md).
        dev.gyro.runtime.LeaderWarmUp.inBackground(own);
        return ir;
    }

    public GroupReplica group() {
        return replica;
    }

    /** The position's instance while this replica leads and runs it, else null. */
    public GyroInstance instance() {
        GyroInstance g = instance;
        return g == null || g.stopped() ? null : g;
    }

    /** The instance this replica prepared while following, to start once it leads; null when it has none. */
    GyroInstance prepared() {
        return prepared;
    }

    /** Waits until this replica has an instance prepared ({@link #prepared()}); false at the deadline. */
    boolean awaitPrepared(java.time.Duration within) throws InterruptedException {
        return signal.await(() -> prepared != null, System.nanoTime() + within.toNanos());
    }

    private void watch() {
        int failures = 0;
        while (!closed) {
            try {
                signal.await(() -> closed || instanceFailed || replica.isLeader() != (instance != null),
                        System.nanoTime() + 1_000_000_000L);
                if (closed) break;
                GyroInstance running = instance;
                if (running != null && (instanceFailed || !replica.isLeader())) {
                    log.info("instance {} at replica {}: {}", config.self(), replica.replica(),
                            instanceFailed ? "it stopped itself; starting it again if this replica leads"
                                    : "this replica no longer leads its group; stopping the instance");
                    instance = null;
                    running.close();
                    instanceFailed = false;
                    continue;
                }
                if (running == null && replica.isLeader()) {
                    GyroInstance g = prepared != null ? prepared : new GyroInstance(config, view);
                    prepared = null;
                    starting = g;
                    try {
                        g.start();
                        instance = g;
                        starting = null;
                        failures = 0;
                        log.info("instance {} runs at replica {} of its group (leader), on {}", config.self(),
                                replica.replica(), config.address());
                    } catch (IOException | RuntimeException e) {
                        starting = null;
                        g.close();
                        instanceFailed = false;
                        failures++;
                        log.warn("instance {} could not start at replica {} (attempt {}): {}", config.self(),
                                replica.replica(), failures, e.getMessage());
                        Thread.sleep(Math.min(2_000, 50L << Math.min(failures, 6))); // a port still held, a leader lost
                    }
                }
                if (instance == null && prepared == null && !prepareFailed && !closed && !replica.isLeader()) prepare();
            } catch (InterruptedException e) {
                break;
            } catch (RuntimeException e) {
                log.error("instance {} at replica {}: the watch failed", config.self(), replica.replica(), e);
            }
        }
    }

    /**
     * While this replica follows: the instance it starts once it leads, with what does not depend on the database
     * built now (docs/decisions/41-failover-on-a-loaded-machine.md); a failure leaves it to be built at the start.
     */
    private void prepare() {
        GyroInstance g = new GyroInstance(config, view);
        try {
            prepared = g.prepare();
            signal.changed();
        } catch (RuntimeException e) {
            g.close();
            prepareFailed = true; // not tried again: each start builds what it needs
            log.warn("instance {} at replica {}: could not prepare its instance ahead: {}", config.self(),
                    replica.replica(), e.toString());
            return;
        }
        if (closed) g.close();
    }

    /** Stops at once, as a crash would: the instance, the Ratis server, the database. */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        GyroInstance serving = instance;
        // As a crash, at once: no call reaches the instance any more (Ratis' close, next, may wait seconds for its
        // channels to the other replicas, and clients would wait on a replica that no longer leads), and its log stops,
        // so what its instance had in flight cannot commit.
        if (serving != null) serving.stopServing();
        replica.close();
        watcher.interrupt();
        try {
            watcher.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        GyroInstance g = instance;
        instance = null;
        if (g != null) g.close();
        g = starting;
        if (g != null) g.close();
        g = prepared;
        prepared = null;
        if (g != null) g.close();
    }

    @Override
    public String toString() {
        return "replica " + replica.replica() + " of instance " + config.self();
    }
}
