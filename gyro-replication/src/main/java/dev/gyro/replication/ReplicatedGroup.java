package dev.gyro.replication;

import dev.gyro.runtime.db.Database;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

/**
 * A ring position served by a group of replicas in this JVM (docs/decisions/12-replicated-groups.md and
 * docs/decisions/22-group-log.md): each replica with its own database and Ratis server on its own loopback port, the
 * leader elected by Ratis. {@link #submit} runs a request on the leader and answers once a majority has committed it.
 *
 * <p>Replicas can be {@linkplain #stop stopped} (their Ratis server closed at once, as a crash would) and
 * {@linkplain #restart restarted} on the same database and log, from which they catch up.
 */
public final class ReplicatedGroup implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ReplicatedGroup.class);

    private volatile GroupSpec spec; // a new member in a lost one's place changes it (replace)
    private final String[] databases;
    private final Path[] logDirs;
    private final GroupSignal signal = new GroupSignal();
    private final GroupReplica[] replicas;

    private ReplicatedGroup(GroupSpec spec, List<String> databases, Path logRoot) {
        this.spec = spec;
        this.databases = databases.toArray(String[]::new);
        this.logDirs = new Path[spec.size()];
        for (int i = 0; i < logDirs.length; i++) logDirs[i] = logRoot.resolve("replica-" + i);
        this.replicas = new GroupReplica[spec.size()];
    }

    /**
     * Starts every replica of {@code spec}: replica i on database {@code databases.get(i)} (a SQLite file or a JDBC
     * URL) with its log under {@code logRoot/replica-i}.
     */
    public static ReplicatedGroup start(GroupSpec spec, List<String> databases, Path logRoot)
            throws SQLException, IOException {
        if (databases.size() != spec.size())
            throw new IllegalArgumentException(spec.name() + " has " + spec.size() + " replicas but "
                    + databases.size() + " databases were given");
        ReplicatedGroup g = new ReplicatedGroup(spec, databases, logRoot);
        try {
            for (int i = 0; i < spec.size(); i++) g.restart(i);
        } catch (SQLException | IOException | RuntimeException e) {
            g.close();
            throw e;
        }
        return g;
    }

    public GroupSpec spec() {
        return spec;
    }

    /** Replica {@code i}, or null while it is stopped. */
    public synchronized GroupReplica replica(int i) {
        return replicas[i];
    }

    private synchronized GroupReplica[] running() {
        return replicas.clone();
    }

    /** The established leader, or null. */
    public GroupReplica leader() {
        for (GroupReplica r : running()) if (r != null && r.isLeader()) return r;
        return null;
    }

    /**
     * Waits for an established leader.
     *
     * @throws GroupUnavailableException when none is elected within {@code within}
     */
    public GroupReplica awaitLeader(Duration within) throws GroupUnavailableException, InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        // The leader seen by the wait is the one answered: asking again could find none, as leadership may move
        // (a leader that lost its majority steps down) between two looks.
        GroupReplica[] seen = new GroupReplica[1];
        if (!signal.await(() -> (seen[0] = leader()) != null, deadline)) {
            int up = 0;
            for (GroupReplica r : running()) if (r != null) up++;
            throw new GroupUnavailableException(spec.name(), up, spec.size(),
                    GroupUnavailableException.Outcome.NOT_APPLIED,
                    "no leader elected within " + GroupReplica.millis(within));
        }
        return seen[0];
    }

    /**
     * Runs {@code work} on the leader; answers once a majority has committed it, or within the commit timeout with
     * {@link GroupUnavailableException}. A request that did not run, or ran on an overtaken database (nothing applied,
     * {@link GroupUnavailableException.Outcome#NOT_APPLIED}), runs again on the leader of the moment meanwhile.
     */
    public <T> T submit(GroupWork<T> work) throws SQLException, GroupUnavailableException, InterruptedException {
        long deadline = System.nanoTime() + spec.commitTimeout().toNanos();
        while (true) {
            Duration left = Duration.ofNanos(Math.max(1, deadline - System.nanoTime()));
            GroupReplica leader = awaitLeader(left);
            try {
                return leader.submit(work, deadline);
            } catch (GroupUnavailableException e) {
                if (e.outcome() != GroupUnavailableException.Outcome.NOT_APPLIED || System.nanoTime() >= deadline)
                    throw e;
                log.debug("{}: running the request again: {}", spec.name(), e.getMessage());
            }
        }
    }

    /**
     * Waits until every running replica has applied the log up to {@code index}.
     *
     * @return false when that did not happen within {@code within}
     */
    public boolean awaitApplied(long index, Duration within) throws InterruptedException {
        return signal.await(() -> {
            for (GroupReplica r : running()) if (r != null && r.appliedIndex() < index) return false;
            return true;
        }, System.nanoTime() + within.toNanos());
    }

    /** The database of the replica that leads, for a replica that fell behind the purged log; null while none does. */
    private Database leaderDatabase() {
        GroupReplica l = leader();
        return l == null ? null : l.database();
    }

    /** Stops replica {@code i} at once: its Ratis server closes mid-flight, as in a crash, and its database closes. */
    public void stop(int i) {
        GroupReplica r;
        synchronized (this) {
            r = replicas[i];
            replicas[i] = null;
        }
        if (r != null) r.close();
    }

    /** (Re)starts replica {@code i} on its database and log; it catches up from the log. */
    public GroupReplica restart(int i) throws SQLException, IOException {
        stop(i);
        GroupReplica r = GroupReplica.start(spec, i, databases[i], logDirs[i], signal, c -> null, this::leaderDatabase);
        synchronized (this) {
            replicas[i] = r;
        }
        signal.changed();
        return r;
    }

    /**
     * Replica {@code i}'s machine is lost with its database and log: a new member on log address {@code address}, with
     * the new database {@code database} (its schema in place, like any replica's) and the new log directory
     * {@code logDir}, takes its place through a membership change (docs/decisions/47-new-member.md) while the group
     * goes on serving. Returns once the group's configuration names the new member.
     *
     * @throws GroupUnavailableException when the group has no leader, or the change did not commit within {@code within};
     *                                   the new member is stopped then
     */
    public GroupReplica replace(int i, java.net.InetSocketAddress address, String database, Path logDir,
                                Duration within) throws SQLException, IOException, GroupUnavailableException,
            InterruptedException {
        stop(i);
        GroupSpec moved = spec.withReplica(i, address);
        GroupReplica r = GroupReplica.join(moved, i, database, logDir, signal, c -> null, this::leaderDatabase);
        try {
            GroupReplica.replaceMember(this::leader, i, moved, signal, System.nanoTime() + within.toNanos());
        } catch (GroupUnavailableException | InterruptedException | RuntimeException e) {
            r.close();
            throw e;
        }
        synchronized (this) {
            spec = moved;
            databases[i] = database;
            logDirs[i] = logDir;
            replicas[i] = r;
        }
        signal.changed();
        return r;
    }

    @Override
    public void close() {
        for (int i = 0; i < replicas.length; i++) stop(i);
    }
}
