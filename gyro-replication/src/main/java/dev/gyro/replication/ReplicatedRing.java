package dev.gyro.replication;

import dev.gyro.runtime.GyroInstance;
import dev.gyro.runtime.InstanceConfig;
import dev.gyro.runtime.db.JoinerCopy;
import dev.gyro.servers.FreePorts;
import dev.gyro.wire.Transport;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A ring of replicated groups in one JVM over real sockets (docs/decisions/24-ring-on-groups.md): N ring positions,
 * each a group of R {@link InstanceReplica}s, each replica with its own database, its own Ratis port and its own Gyro
 * port. The ring's address of a position lists its replicas' Gyro addresses ({@code A+B+C}). For {@code gyro demo
 * --replicas R} and tests; {@link #kill} and {@link #restart} stop a replica as a crash would and bring it back on
 * its database and log.
 */
public final class ReplicatedRing implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ReplicatedRing.class);

    // Positions only grow (ids are never reused, docs/decisions/44-ring-changes.md): each list is replaced whole by a
    // join, under this ring's lock, and read without it.
    private volatile List<GroupSpec> specs;
    private volatile List<List<String>> databases;
    private volatile List<List<String>> gyroAddresses;
    /** Where a replica keeps its log, by position and replica, where it is not logRoot/group-P/replica-R. */
    private final java.util.Map<List<Integer>, Path> logDirs = new java.util.concurrent.ConcurrentHashMap<>();
    private volatile InstanceReplica[][] replicas;
    private volatile List<GroupSignal> signals;
    private final Object changes = new Object(); // one join or leave at a time
    private final java.util.Set<Integer> left = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final String cluster;
    private final int firstPositions; // the ring as it started, which its first partition map names
    private final GroupTimeouts timeouts;
    private final Path logRoot;
    private final RingConfig configs;

    private ReplicatedRing(List<GroupSpec> specs, List<List<String>> databases, List<List<String>> gyroAddresses,
                           Path logRoot, String cluster, GroupTimeouts timeouts, RingConfig configs) {
        this.specs = List.copyOf(specs);
        this.databases = List.copyOf(databases);
        this.gyroAddresses = List.copyOf(gyroAddresses);
        this.logRoot = logRoot;
        this.cluster = cluster;
        this.firstPositions = databases.size();
        this.timeouts = timeouts;
        this.configs = configs;
        int n = databases.size();
        InstanceReplica[][] rs = new InstanceReplica[n][];
        List<GroupSignal> ss = new ArrayList<>();
        for (int p = 0; p < n; p++) {
            rs[p] = new InstanceReplica[databases.get(p).size()];
            ss.add(new GroupSignal());
        }
        this.replicas = rs;
        this.signals = List.copyOf(ss);
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
        ReplicatedRing ring = new ReplicatedRing(specs, databases, gyro, logRoot, cluster, timeouts, configs);
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
        List<String> now = new ArrayList<>();
        for (List<String> g : gyroAddresses) now.add(String.join(Transport.REPLICA_SEPARATOR, g));
        return List.copyOf(now);
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
                if (left.contains(p)) continue;
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
            if (left.contains(p)) continue;
            if (!signals.get(p).await(() -> leader(position) != null, deadline)) return false;
        }
        return true;
    }

    /** The positions that left the ring ({@link #leave}): their groups are stopped. */
    public java.util.Set<Integer> departed() {
        return java.util.Set.copyOf(left);
    }

    /** The target (SQLite file or JDBC URL) of replica {@code r} of {@code position}'s database. */
    public String database(int position, int r) {
        return databases.get(position).get(r);
    }

    /**
     * Adds a group to the running ring (docs/decisions/44-ring-changes.md): the join runs in the token's round at a
     * position that holds it; the new group's first replica gets a copy of that position's leader's database once it
     * made the join ({@link JoinerCopy}), the others a copy of that copy, so the group starts alike on every replica with
     * an empty log; then its replicas start on free loopback ports, elect a leader, and the leader's instance waits for
     * the token. The group owns no bucket until some are moved to it.
     *
     * @param targets  the new group's databases, new and empty, replica r on {@code targets.get(r)}
     * @param schema   makes the application's tables (a copy through JDBC fills them)
     * @param progress told each step
     * @return the new position
     * @throws IllegalStateException when the ring refused the join (its reply says why), or no leader was elected
     */
    public int join(List<String> targets, JoinerCopy.Schema schema, java.util.function.Consumer<String> progress)
            throws IOException, SQLException, InterruptedException {
        synchronized (changes) {
            return joinGroup(targets, schema, progress);
        }
    }

    private int joinGroup(List<String> targets, JoinerCopy.Schema schema, java.util.function.Consumer<String> progress)
            throws IOException, SQLException, InterruptedException {
        if (targets.isEmpty()) throw new IllegalArgumentException("a group has at least one replica");
        int id = size();
        List<Integer> ports = FreePorts.take(2 * targets.size());
        List<InetSocketAddress> raft = new ArrayList<>();
        List<String> addresses = new ArrayList<>();
        for (int i = 0; i < targets.size(); i++) {
            raft.add(new InetSocketAddress("127.0.0.1", ports.get(2 * i)));
            addresses.add("127.0.0.1:" + ports.get(2 * i + 1));
        }
        String address = String.join(Transport.REPLICA_SEPARATOR, addresses);
        GyroInstance entry = null;
        for (int p = 0; p < size() && entry == null; p++) if (!left.contains(p)) entry = instance(p);
        if (entry == null) throw new IllegalStateException("no group has a leader to take the join");
        dev.gyro.wire.Reply joined = entry.call(dev.gyro.wire.RingRequest.join(address, id));
        if (joined.status() != dev.gyro.wire.Reply.Status.OK)
            throw new IllegalStateException("the ring refused group " + id + " at " + address + ": " + joined.status()
                    + ": " + joined.message());
        int maker = joined.instance(); // its group applied the join: its leader's database holds it
        InstanceReplica source = leader(maker);
        String from = source == null ? databases.get(maker).get(0) : databases.get(maker).get(source.group().replica());
        JoinerCopy.make(from, targets.get(0), id, schema, 60_000, progress);
        ReplicaProgress.forget(targets.get(0));
        for (int r = 1; r < targets.size(); r++) JoinerCopy.make(targets.get(0), targets.get(r), id, schema, 60_000, progress);
        List<String> grown = new ArrayList<>(addresses());
        grown.add(address);
        Transport log = configs.config(id, List.copyOf(grown)).network().transport();
        synchronized (this) { // the replicas' array first: a size() that counts the new position finds its row
            InstanceReplica[][] rs = java.util.Arrays.copyOf(replicas, id + 1);
            rs[id] = new InstanceReplica[targets.size()];
            replicas = rs;
            signals = append(signals, new GroupSignal());
            databases = append(databases, List.copyOf(targets));
            gyroAddresses = append(gyroAddresses, List.copyOf(addresses));
            specs = append(specs, new GroupSpec(cluster, id, raft, timeouts, log));
        }
        for (int r = 0; r < targets.size(); r++) restart(id, r);
        int position = id;
        if (!signals.get(id).await(() -> leader(position) != null, System.nanoTime() + java.util.concurrent.TimeUnit
                .SECONDS.toNanos(120)))
            throw new IllegalStateException(specs.get(id).name() + " joined the ring but elected no leader within 120 s");
        progress.accept(specs.get(id).name() + " at " + address + " runs (replica " + leader(id).group().replica()
                + " leads)");
        return id;
    }

    /**
     * Takes {@code position} out of the running ring once it owns no bucket (docs/decisions/44-ring-changes.md): the
     * leave runs at another position's instance; once the leaving group's instance applied it, its replicas stop.
     *
     * @throws IllegalStateException when the ring refused the leave (its reply says why)
     */
    public void leave(int position) throws InterruptedException {
        synchronized (changes) {
            leaveRing(position);
        }
    }

    private void leaveRing(int position) throws InterruptedException {
        GyroInstance entry = null;
        for (int p = 0; p < size() && entry == null; p++) if (p != position && !left.contains(p)) entry = instance(p);
        if (entry == null) throw new IllegalStateException("no other group has a leader to take the leave of " + position);
        dev.gyro.wire.Reply r = entry.call(dev.gyro.wire.RingRequest.leave(position));
        if (r.status() != dev.gyro.wire.Reply.Status.OK)
            throw new IllegalStateException("the ring refused the leave of group " + position + ": " + r.status() + ": "
                    + r.message());
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
        signals.get(position).await(() -> {
            GyroInstance g = instance(position);
            return g == null || g.appliedGsn() >= r.gsn();
        }, deadline);
        left.add(position);
        for (int i = 0; i < replicas(position); i++) kill(position, i);
    }

    /**
     * Position {@code p}'s configuration with the ring's addresses as they are now, and the partition map the ring
     * started with: the map that names the first ring, which positions that joined later share
     * (docs/decisions/44-ring-changes.md).
     */
    private InstanceConfig config(int p) {
        InstanceConfig c = configs.config(p, addresses());
        dev.gyro.protocol.PartitionMap first = dev.gyro.protocol.PartitionMap.uniform(firstPositions);
        return c.partitionMap().instances() == firstPositions ? c : c.withPartitionMap(first);
    }

    private static <T> List<T> append(List<T> list, T more) {
        List<T> out = new ArrayList<>(list);
        out.add(more);
        return List.copyOf(out);
    }

    /** Stops replica {@code r} of {@code position} at once, as a crash would (its database and log stay). */
    public void kill(int position, int r) {
        InstanceReplica x;
        synchronized (this) {
            x = replicas[position][r];
            replicas[position][r] = null;
        }
        if (x != null) x.close();
        signals.get(position).changed();
    }

    /** (Re)starts replica {@code r} of {@code position} on its database and log; it catches up from the log. */
    public InstanceReplica restart(int position, int r) throws IOException, SQLException {
        kill(position, r);
        InstanceReplica x = InstanceReplica.start(specs.get(position), r, databases.get(position).get(r),
                logDir(position, r), config(position),
                gyroAddresses.get(position).get(r), signals.get(position), () -> {
                    InstanceReplica l = leader(position);
                    return l == null ? null : l.group().database();
                });
        synchronized (this) {
            replicas[position][r] = x;
        }
        signals.get(position).changed();
        return x;
    }

    private Path logDir(int position, int r) {
        Path p = logDirs.get(List.of(position, r));
        return p != null ? p : logRoot.resolve("group-" + position).resolve("replica-" + r);
    }

    /**
     * Replica {@code r} of {@code position} is lost for good, its machine with its database and log: a new member on
     * new addresses (its group log's and its instance's), with the new database {@code database} (an empty SQLite file
     * or database of the group's DBMS) and a log of its own, takes its place while the ring serves
     * (docs/decisions/47-new-member.md). It starts on a copy of its leader's database, knowing no member; the ring learns the group's new address (a
     * ring change, {@code gyro.moveInstance}) while the new member cannot lead yet; then the group's leader makes it a
     * member in the lost one's place (one Ratis membership change, after it caught up: from the log, or from a copy
     * of a live replica's database). Returns the new member.
     *
     * @throws IllegalStateException when the ring refused the new address or the group did not take the new member
     *                               within two minutes (the new member is stopped then)
     */
    public InstanceReplica replaceMember(int position, int r, String database)
            throws IOException, SQLException, InterruptedException {
        synchronized (changes) {
            kill(position, r); // if it still ran: its machine is gone
            if (!signals.get(position).await(() -> leader(position) != null, System.nanoTime()
                    + java.util.concurrent.TimeUnit.SECONDS.toNanos(60)))
                throw new IllegalStateException(specs.get(position).name() + " has no leader (its other members do not"
                        + " make a majority): a new member is added by a group that serves");
            InstanceReplica source = leader(position);
            List<Integer> ports = FreePorts.take(2);
            GroupSpec spec = specs.get(position).withReplica(r, new InetSocketAddress("127.0.0.1", ports.get(0)));
            String gyro = "127.0.0.1:" + ports.get(1);
            Path ownLog = logRoot.resolve("group-" + position).resolve("replica-" + r + "-" + ports.get(0));
            List<String> members = new ArrayList<>(gyroAddresses.get(position));
            members.set(r, gyro);
            String address = String.join(Transport.REPLICA_SEPARATOR, members);
            // The ring first, at the group's own instance: it reaches the group at the new address from now on, where
            // nothing listens until the new member leads, which it cannot before it is a member.
            dev.gyro.wire.Reply m = source.instance().call(dev.gyro.wire.RingRequest.move(position, address));
            if (m.status() != dev.gyro.wire.Reply.Status.OK)
                throw new IllegalStateException("the ring refused " + address + " as the address of group " + position
                        + ": " + m.status() + ": " + m.message());
            synchronized (this) {
                List<List<String>> gyros = new ArrayList<>(gyroAddresses);
                gyros.set(position, List.copyOf(members));
                gyroAddresses = List.copyOf(gyros);
            }
            // It starts on a copy of its leader's database (the log does not hold what the databases were loaded
            // with, and the copy holds the new address), and takes the log after the copy's index.
            InstanceConfig config = config(position);
            Snapshot.copy(source.group().database(), spec, source.group().replica(), database, r, c -> {
                GyroInstance.prepare(c, config);
                return null;
            }, table -> log.info("the new member of {}: {}", spec.name(), table));
            InstanceReplica x = InstanceReplica.join(spec, r, database, ownLog, config, gyro, signals.get(position),
                    () -> {
                        InstanceReplica l = leader(position);
                        return l == null ? null : l.group().database();
                    });
            try {
                GroupReplica.replaceMember(() -> {
                    InstanceReplica l = leader(position);
                    return l == null ? null : l.group();
                }, r, spec, signals.get(position), System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(120));
            } catch (GroupUnavailableException e) {
                x.close();
                throw new IllegalStateException(spec.name() + " did not take its new member at " + spec.replicas().get(r)
                        + " within 120 s: " + e.getMessage(), e);
            } catch (RuntimeException | InterruptedException e) {
                x.close();
                throw e;
            }
            synchronized (this) {
                List<List<String>> dbs = new ArrayList<>(databases);
                List<String> group = new ArrayList<>(dbs.get(position));
                group.set(r, database);
                dbs.set(position, List.copyOf(group));
                databases = List.copyOf(dbs);
                List<GroupSpec> ss = new ArrayList<>(specs);
                ss.set(position, spec);
                specs = List.copyOf(ss);
                logDirs.put(List.of(position, r), ownLog);
                replicas[position][r] = x;
            }
            signals.get(position).changed();
            return x;
        }
    }

    /**
     * Rebuilds replica {@code r} of {@code position} whose database was lost or fell behind its group's purged log
     * (docs/decisions/24-ring-on-groups.md, 45-database-as-snapshot.md): kills it, replaces its database with a copy of
     * the database of the replica that leads its group ({@link Snapshot}: a SQLite file, or through JDBC on
     * PostgreSQL and MariaDB) and starts it on the copy with its own group log (its term, its vote, its entries: what
     * Raft needs a member to keep; the entries the copy holds are skipped); it applies the entries after the copy's
     * index, which its log or its leader gives it. A replica that leads hands its
     * leadership to another first.
     *
     * @return the log index the copy held
     */
    public long replace(int position, int r) throws IOException, SQLException, InterruptedException {
        InstanceReplica leader = leader(position);
        if (leader == null) throw new IllegalStateException(specs.get(position).name() + " has no leader to copy from");
        if (leader.group().replica() == r) leader = handOver(position, r);
        kill(position, r);
        InstanceConfig config = config(position);
        long index = Snapshot.copy(leader.group().database(), specs.get(position), leader.group().replica(),
                databases.get(position).get(r), r, c -> {
                    dev.gyro.runtime.GyroInstance.prepare(c, config);
                    return null;
                }, table -> log.info("rebuilding replica {} of {}: {}", r, specs.get(position).name(), table));
        restart(position, r);
        return index;
    }

    /**
     * Replica {@code r} leads {@code position}'s group and is to be rebuilt from a copy of its leader's database: it
     * hands its leadership to another running replica first. Returns the new leader.
     *
     * @throws IllegalStateException when no other replica runs, or none took the leadership within 30 s
     */
    private InstanceReplica handOver(int position, int r) throws InterruptedException {
        InstanceReplica from = replica(position, r);
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        for (int k = 1; k < replicas(position) && System.nanoTime() < deadline; k++) {
            int to = (r + k) % replicas(position);
            if (replica(position, to) == null || from == null) continue;
            if (!from.group().transferLeadership(to, java.time.Duration.ofSeconds(10))) continue;
            if (signals.get(position).await(() -> {
                InstanceReplica l = leader(position);
                return l != null && l.group().replica() != r;
            }, deadline)) return leader(position);
        }
        throw new IllegalStateException("replica " + r + " leads " + specs.get(position).name() + " and no other replica"
                + " took its leadership: a replica is rebuilt from a copy of its leader's database");
    }

    /**
     * Waits until every running replica of every group has applied its group's whole log, as far as the leader's
     * log goes; false at the deadline.
     */
    public boolean awaitReplicasCaughtUp(java.time.Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        for (int p = 0; p < size(); p++) {
            int position = p;
            if (left.contains(p)) continue;
            if (!signals.get(p).await(() -> caughtUp(position), deadline)) return false;
        }
        return true;
    }

    /**
     * Waits until replica {@code r} of {@code position} has applied its group's log as far as the leader's went when
     * called (under load, where the group as a whole is never level); false at the deadline.
     */
    public boolean awaitCaughtUp(int position, int r, java.time.Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        long[] target = {-1};
        return signals.get(position).await(() -> {
            InstanceReplica l = leader(position), x = replica(position, r);
            if (target[0] < 0 && l != null) {
                try {
                    target[0] = l.group().lastRequestIndex();
                } catch (IOException e) {
                    return false;
                }
            }
            return target[0] >= 0 && x != null && x.group().storedIndex() >= target[0];
        }, deadline);
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
