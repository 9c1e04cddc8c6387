package dev.gyro.replication;

import dev.gyro.runtime.GyroInstance;
import dev.gyro.runtime.InstanceConfig;
import dev.gyro.servers.FreePorts;
import dev.gyro.wire.Transport;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * A ring of replicated groups in one JVM over real sockets (docs/decisions/24-ring-on-groups.md): N ring positions,
 * each a group of R {@link InstanceReplica}s, each replica with its own database, its own Ratis port and its own Gyro
 * port. The ring's address of a position lists its replicas' Gyro addresses ({@code A+B+C}). For {@code gyro demo
 * --replicas R} and tests; {@link #kill} and {@link #restart} stop a replica as a crash would and bring it back on
 * its database and log.
 */
public final class ReplicatedRing implements AutoCloseable {

    private final List<GroupSpec> specs;
    private final List<List<String>> databases;
    private final List<List<String>> gyroAddresses;
    private final List<String> ring;
    private final Path logRoot;
    private final RingConfig configs;
    private final InstanceReplica[][] replicas;
    private final GroupSignal[] signals;

    private ReplicatedRing(List<GroupSpec> specs, List<List<String>> databases, List<List<String>> gyroAddresses,
                           Path logRoot, RingConfig configs) {
        this.specs = List.copyOf(specs);
        this.databases = List.copyOf(databases);
        this.gyroAddresses = List.copyOf(gyroAddresses);
        this.logRoot = logRoot;
        this.configs = configs;
        List<String> r = new ArrayList<>();
        for (List<String> g : gyroAddresses) r.add(String.join(Transport.REPLICA_SEPARATOR, g));
        this.ring = List.copyOf(r);
        int n = databases.size();
        this.replicas = new InstanceReplica[n][];
        this.signals = new GroupSignal[n];
        for (int p = 0; p < n; p++) {
            replicas[p] = new InstanceReplica[databases.get(p).size()];
            signals[p] = new GroupSignal();
        }
    }

    /**
     * Starts every replica of every position on free loopback ports.
     *
     * @param databases replica r of position p on {@code databases.get(p).get(r)} (SQLite files or JDBC URLs)
     * @param logRoot   replica r of position p keeps its log under {@code logRoot/group-p/replica-r}
     * @param configs   the instance configuration of position p, given the ring's addresses (the groups')
     */
    public static ReplicatedRing start(List<List<String>> databases, Path logRoot, String cluster, GroupTimeouts timeouts,
                                       RingConfig configs) throws IOException, SQLException {
        int total = 0;
        for (List<String> g : databases) total += g.size();
        List<Integer> ports = FreePorts.take(2 * total);
        List<List<InetSocketAddress>> rafts = new ArrayList<>();
        List<List<String>> gyro = new ArrayList<>();
        int next = 0;
        for (int p = 0; p < databases.size(); p++) {
            List<InetSocketAddress> raft = new ArrayList<>();
            List<String> addresses = new ArrayList<>();
            for (int i = 0; i < databases.get(p).size(); i++) {
                raft.add(new InetSocketAddress("127.0.0.1", ports.get(next++)));
                addresses.add("127.0.0.1:" + ports.get(next++));
            }
            rafts.add(raft);
            gyro.add(List.copyOf(addresses));
        }
        List<String> ringAddresses = new ArrayList<>();
        for (List<String> g : gyro) ringAddresses.add(String.join(Transport.REPLICA_SEPARATOR, g));
        List<GroupSpec> specs = new ArrayList<>();
        for (int p = 0; p < databases.size(); p++) {
            // Each group's log speaks what its instance's port speaks (docs/decisions/32-group-log-tls.md): mutual TLS
            // as instance-P with the instance's certificates, or plaintext for an instance configured without TLS.
            Transport log = configs.config(p, List.copyOf(ringAddresses)).network().transport();
            specs.add(new GroupSpec(cluster, p, rafts.get(p), timeouts, log));
        }
        ReplicatedRing ring = new ReplicatedRing(specs, databases, gyro, logRoot, configs);
        try {
            for (int p = 0; p < ring.size(); p++)
                for (int i = 0; i < ring.replicas(p); i++) ring.restart(p, i);
        } catch (IOException | SQLException | RuntimeException e) {
            ring.close();
            throw e;
        }
        return ring;
    }

    /** The instance configuration of a ring position, given the ring's addresses. */
    @FunctionalInterface
    public interface RingConfig {
        InstanceConfig config(int position, List<String> ring);
    }

    /** The ring's addresses: one per position, each its replicas' Gyro addresses joined ({@code A+B+C}). */
    public List<String> addresses() {
        return List.copyOf(ring);
    }

    public int size() {
        return specs.size();
    }

    public int replicas(int position) {
        return replicas[position].length;
    }

    public GroupSpec spec(int position) {
        return specs.get(position);
    }

    /** Replica {@code r} of {@code position}, or null while it is killed. */
    public synchronized InstanceReplica replica(int position, int r) {
        return replicas[position][r];
    }

    /** The replica of {@code position} that leads its group and runs its instance now, or null. */
    public InstanceReplica leader(int position) {
        for (int r = 0; r < replicas(position); r++) {
            InstanceReplica x = replica(position, r);
            if (x != null && x.group().isLeader() && x.instance() != null) return x;
        }
        return null;
    }

    /** The instance of {@code position} running now (at its leader), or null. */
    public GyroInstance instance(int position) {
        InstanceReplica l = leader(position);
        return l == null ? null : l.instance();
    }

    /**
     * Waits until the ring is quiet: every position's instance has applied the same last gsn and one of them holds the
     * token parked (then every global update has reached every position's leader); false at the deadline.
     */
    public boolean awaitQuiet(java.time.Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < deadline) {
            long gsn = -1;
            boolean same = true;
            int parked = 0;
            for (int p = 0; p < size(); p++) {
                GyroInstance g = instance(p);
                if (g == null) {
                    same = false;
                    break;
                }
                if (gsn < 0) gsn = g.appliedGsn();
                if (g.appliedGsn() != gsn) same = false;
                if (g.role().equals("PARKED")) parked++;
            }
            if (same && parked == 1) return true;
            Thread.sleep(20); // the instances' state changes without an event to wait on here
        }
        return false;
    }

    /** Waits until every position has a leader running its instance; false at the deadline. */
    public boolean awaitLeaders(java.time.Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        for (int p = 0; p < size(); p++) {
            int position = p;
            if (!signals[p].await(() -> leader(position) != null, deadline)) return false;
        }
        return true;
    }

    /** Stops replica {@code r} of {@code position} at once, as a crash would (its database and log stay). */
    public void kill(int position, int r) {
        InstanceReplica x;
        synchronized (this) {
            x = replicas[position][r];
            replicas[position][r] = null;
        }
        if (x != null) x.close();
        signals[position].changed();
    }

    /** (Re)starts replica {@code r} of {@code position} on its database and log; it catches up from the log. */
    public InstanceReplica restart(int position, int r) throws IOException, SQLException {
        kill(position, r);
        InstanceReplica x = InstanceReplica.start(specs.get(position), r, databases.get(position).get(r),
                logRoot.resolve("group-" + position).resolve("replica-" + r), configs.config(position, ring),
                gyroAddresses.get(position).get(r), signals[position]);
        synchronized (this) {
            replicas[position][r] = x;
        }
        signals[position].changed();
        return x;
    }

    /**
     * Rebuilds replica {@code r} of {@code position} whose database was lost (docs/decisions/24-ring-on-groups.md):
     * kills it, deletes its database, copies the database of the replica that leads its group ({@link Snapshot},
     * SQLite) and starts it on the copy with its own group log (its term, its vote, its entries: what Raft needs a
     * member to keep); it applies the entries after the copy's index, which its log or its leader gives it.
     *
     * @return the log index the copy held
     */
    public long replace(int position, int r) throws IOException, SQLException {
        InstanceReplica leader = leader(position);
        if (leader == null) throw new IllegalStateException(specs.get(position).name() + " has no leader to copy from");
        if (leader.group().replica() == r)
            throw new IllegalArgumentException("replica " + r + " leads " + specs.get(position).name()
                    + ": a replica is rebuilt from a copy of its leader's database, so only a follower can be replaced");
        kill(position, r);
        Path db = Path.of(databases.get(position).get(r));
        for (String suffix : new String[] {"", "-wal", "-shm", "-journal"})
            java.nio.file.Files.deleteIfExists(Path.of(db + suffix));
        long index = Snapshot.copy(leader.group().database(), specs.get(position), leader.group().replica(), db, r);
        restart(position, r);
        return index;
    }

    /**
     * Waits until every running replica of every group has applied its group's whole log, as far as the leader's
     * log goes; false at the deadline.
     */
    public boolean awaitReplicasCaughtUp(java.time.Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        for (int p = 0; p < size(); p++) {
            int position = p;
            if (!signals[p].await(() -> caughtUp(position), deadline)) return false;
        }
        return true;
    }

    private boolean caughtUp(int position) {
        InstanceReplica l = leader(position);
        if (l == null) return false;
        long last;
        try {
            last = l.group().lastRequestIndex();
        } catch (IOException e) {
            return false;
        }
        for (int r = 0; r < replicas(position); r++) {
            InstanceReplica x = replica(position, r);
            if (x != null && x.group().storedIndex() < last) return false;
        }
        return true;
    }

    @Override
    public void close() {
        for (int p = 0; p < replicas.length; p++)
            for (int r = 0; r < replicas[p].length; r++) kill(p, r);
    }
}
