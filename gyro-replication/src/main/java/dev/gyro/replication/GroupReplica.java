package dev.gyro.replication;

import dev.gyro.protocol.RowChange;
import dev.gyro.runtime.db.CapturingConnection;
import dev.gyro.runtime.db.Database;
import dev.gyro.runtime.db.Dialect;
import dev.gyro.runtime.db.Replication;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.proto.RaftProtos.ServerRpcProto;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One replica of a group (docs/decisions/22-group-log.md): its own database, its Ratis server for the group's log, and
 * the database as the log's state machine ({@link ReplicaStateMachine}).
 *
 * <p>As leader it runs requests ({@link #submit}), one at a time (the writer lock; SQLite has one writer anyway): once
 * its database holds every entry of its log, it begins a DBMS transaction, runs the request on capturing connections,
 * appends the row images to the log and keeps the transaction open until the entry is applied, which commits it with
 * the entry's log index. An entry that does not commit within {@link GroupSpec#commitTimeout()}, or a leadership lost
 * on the way, rolls the transaction back: the leader's database never holds what the group did not commit.
 *
 * <p>Thread-safe.
 */
public final class GroupReplica implements Replication, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(GroupReplica.class);

    private final GroupSpec spec;
    private final int replica;
    private final String name;
    private final Database db;
    private final ReentrantLock writer = new ReentrantLock(true);
    private final ReplicaStateMachine machine;
    private final RaftServer server;
    private final ClientId clientId = ClientId.randomId();
    private final AtomicLong callIds = new AtomicLong();
    private final long session = UUID.randomUUID().getMostSignificantBits();
    private final AtomicLong requests = new AtomicLong();
    private final GroupSignal signal;
    private volatile boolean closed;

    private GroupReplica(GroupSpec spec, int replica, Database db, ReplicaProgress.Position at, Path logDir,
                         GroupSignal signal) throws IOException {
        this.spec = spec;
        this.replica = replica;
        this.name = "replica " + replica + " of " + spec.name();
        this.db = db;
        this.signal = signal;
        this.machine = new ReplicaStateMachine(name, db, at, writer, signal, this::failStop);
        boolean known = Files.isDirectory(logDir.resolve(spec.groupId().getUuid().toString()));
        this.server = RaftServer.newBuilder()
                .setServerId(GroupSpec.peerId(replica))
                .setGroup(spec.raftGroup())
                .setStateMachine(machine)
                .setProperties(properties(spec, replica, logDir))
                .setParameters(GroupLogTls.parameters(spec))
                .setOption(known ? RaftStorage.StartupOption.RECOVER : RaftStorage.StartupOption.FORMAT)
                .build();
    }

    /**
     * Opens replica {@code replica}'s database ({@code database}: a SQLite file or a JDBC URL), claims it for this group
     * and replica, and starts its Ratis server with its log under {@code logDir} (recovered when there is one).
     *
     * @throws SQLException when the database cannot be opened or belongs to another group or replica
     * @throws IOException  when the Ratis server cannot start (its port taken, its log unreadable)
     */
    static GroupReplica start(GroupSpec spec, int replica, String database, Path logDir, GroupSignal signal)
            throws SQLException, IOException {
        return start(spec, replica, database, logDir, signal, c -> null);
    }

    /**
     * As {@link #start(GroupSpec, int, String, Path, GroupSignal)}, making the database ready first with {@code prepare}
     * (the application's schema, Gyro's metadata tables: what every replica needs before it applies its first entry),
     * in the transaction that claims it.
     */
    static GroupReplica start(GroupSpec spec, int replica, String database, Path logDir, GroupSignal signal,
                              dev.gyro.runtime.db.SqlWork<?> prepare) throws SQLException, IOException {
        if (replica < 0 || replica >= spec.size())
            throw new IllegalArgumentException(spec.name() + " has replicas 0.." + (spec.size() - 1) + ", not " + replica);
        Dialect dialect = Dialect.forTarget(database);
        Database db = Database.open(dialect, database, dialect.instanceOptions());
        GroupReplica r = null;
        try {
            ReplicaProgress.Position at = db.inTransaction(false, c -> {
                ReplicaProgress.Position claimed = ReplicaProgress.claim(c, spec.name(), replica); // refuses another's
                prepare.run(c);
                return claimed;
            });
            r = new GroupReplica(spec, replica, db, at, logDir, signal);
            r.server.start();
            log.debug("{} started at log index {}", r.name, at.appliedIndex());
            return r;
        } catch (SQLException | IOException | RuntimeException e) {
            if (r != null) r.close();
            else db.close();
            throw e;
        }
    }

    private static RaftProperties properties(GroupSpec spec, int replica, Path logDir) {
        RaftProperties p = new RaftProperties();
        RaftServerConfigKeys.setStorageDir(p, List.of(logDir.toFile()));
        InetSocketAddress address = spec.replicas().get(replica);
        GrpcConfigKeys.Server.setHost(p, address.getHostString());
        GrpcConfigKeys.Server.setPort(p, address.getPort());
        GroupTimeouts t = spec.timeouts();
        RaftServerConfigKeys.Rpc.setTimeoutMin(p, ratis(t.electionMin()));
        RaftServerConfigKeys.Rpc.setTimeoutMax(p, ratis(t.electionMax()));
        // A group's first election (at start, or a whole group restarted) on the same timeouts as any other.
        RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMin(p, ratis(t.electionMin()));
        RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMax(p, ratis(t.electionMax()));
        RaftServerConfigKeys.Rpc.setRequestTimeout(p, ratis(t.request()));
        // Pre-vote (Ratis' default, set here because the short election timeouts rely on it): a follower that missed
        // heartbeats only because its machine was busy asks first, and the others, still hearing their leader, say no.
        RaftServerConfigKeys.LeaderElection.setPreVote(p, true);
        // A leader that stepped down (a vote or an entry of a newer term reached it) may stand again after one election
        // timeout, not Ratis' 10 s: on a loaded machine both survivors of a kill had stepped down within it, and the
        // group waited 10 s without a leader (docs/decisions/41-failover-on-a-loaded-machine.md). Pre-vote still keeps
        // it from deposing a leader the others hear.
        RaftServerConfigKeys.LeaderElection.setLeaderStepDownWaitTime(p, ratis(t.electionMax()));
        // Reads (decision 24): linearizable, served by the leader once a round of heartbeats confirms it still leads
        // (Ratis' read index). Not by leader lease: measured side by side (gyro bench replicas), the lease made a
        // quarter of the failovers last about 3 s instead of 1-1.8 s, since followers refuse to vote while it may hold.
        RaftServerConfigKeys.Read.setOption(p, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
        RaftServerConfigKeys.Read.setLeaderLeaseEnabled(p, false);
        return p;
    }

    private static TimeDuration ratis(Duration d) {
        return TimeDuration.valueOf(d.toMillis(), TimeUnit.MILLISECONDS);
    }

    public int replica() {
        return replica;
    }

    public Database database() {
        return db;
    }

    /** True while this replica leads its group and its leadership is established (its first entry committed). */
    public boolean isLeader() {
        if (closed) return false;
        try {
            var info = division().getInfo();
            return info.isLeader() && info.isLeaderReady();
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** This replica's current Ratis term: each election that some replica started raises it (-1 when stopped). */
    public long term() {
        if (closed) return -1;
        try {
            return division().getInfo().getCurrentTerm();
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** The highest log index this replica has applied to its database (Ratis' own entries included). */
    public long appliedIndex() {
        return machine.appliedIndex();
    }

    /** The index of the last entry of this replica's log, committed or not (0 for an empty log). */
    public long lastLogIndex() throws IOException {
        TermIndex last = division().getRaftLog().getLastEntryTermIndex();
        return last == null ? 0 : last.getIndex();
    }

    /**
     * The index of the last request's entry in this replica's log (0: none). Ratis writes entries of its own besides
     * (a leader's first entry, the commit index), so this may be below {@link #lastLogIndex()}.
     */
    public long lastRequestIndex() throws IOException {
        RaftLog raftLog = division().getRaftLog();
        for (long i = lastLogIndex(); i >= Math.max(1, raftLog.getStartIndex()); i--) {
            LogEntryProto e = raftLog.get(i);
            if (e != null && e.hasStateMachineLogEntry()) return i;
        }
        return 0;
    }

    /** How many requests' entries this replica's log holds with an index in {@code (after, upTo]}. */
    long requestEntries(long after, long upTo) throws IOException {
        RaftLog raftLog = division().getRaftLog();
        long n = 0;
        for (long i = Math.max(after + 1, raftLog.getStartIndex()); i <= upTo; i++) {
            LogEntryProto e = raftLog.get(i);
            if (e != null && e.hasStateMachineLogEntry()) n++;
        }
        return n;
    }

    /** The last log index whose effect the database records (its rows, or nothing for a stale entry). */
    public long storedIndex() {
        return machine.stored().appliedIndex();
    }

    /** Entries whose rows this replica's database took, its own committed ones included, since it started. */
    public long entriesApplied() {
        return machine.entriesApplied.sum();
    }

    /** Entries Ratis delivered again that the database already held (after a restart). */
    public long redeliveriesSkipped() {
        return machine.redeliveriesSkipped.sum();
    }

    /** Entries skipped because they were computed on an overtaken database. */
    public long staleEntries() {
        return machine.staleEntries.sum();
    }

    private RaftServer.Division division() throws IOException {
        return server.getDivision(spec.groupId());
    }

    /**
     * Runs {@code work} as the group's leader and answers once a majority has committed its log entry
     * (docs/decisions/22-group-log.md). A request that writes nothing commits at once, without a log entry.
     *
     * @throws GroupUnavailableException when this replica is not the leader, or the entry did not commit within the
     *                                   commit timeout; the transaction is rolled back, and the exception says
     *                                   whether the entry may still commit
     * @throws SQLException              when {@code work} fails: rolled back, nothing appended
     */
    public <T> T submit(GroupWork<T> work) throws SQLException, InterruptedException {
        return submit(work, System.nanoTime() + spec.commitTimeout().toNanos());
    }

    /** {@link #submit(GroupWork)}, answered by {@code deadline} ({@link System#nanoTime()}). */
    <T> T submit(GroupWork<T> work, long deadline) throws SQLException, InterruptedException {
        Connection c = begin(deadline);
        boolean committing = false;
        try {
            T result = work.run(new GroupTransaction(c, db.dialect(), db.tables()));
            committing = true;
            commit(c, deadline);
            return result;
        } finally {
            if (!committing) rollback(c);
        }
    }

    /**
     * {@link Replication#beforeRead}: a linearizable read through this replica's own Ratis server, which answers once
     * this replica proved it leads (Ratis' read index: a round of heartbeats a majority answered) and its database
     * applied the log up to the commit index of that moment.
     */
    @Override
    public void beforeRead() throws SQLException {
        RaftClientRequest request = RaftClientRequest.newBuilder()
                .setClientId(clientId)
                .setServerId(server.getId())
                .setGroupId(spec.groupId())
                .setCallId(callIds.incrementAndGet())
                .setMessage(Message.EMPTY)
                .setType(RaftClientRequest.readRequestType())
                .build();
        String why;
        try {
            RaftClientReply r = server.submitClientRequestAsync(request)
                    .get(spec.commitTimeout().toMillis(), TimeUnit.MILLISECONDS);
            if (r.isSuccess()) return;
            why = String.valueOf(r.getException());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            why = "interrupted";
        } catch (ExecutionException | TimeoutException | IOException | RuntimeException e) {
            why = e instanceof TimeoutException ? "no answer within " + millis(spec.commitTimeout()) : e.toString();
        }
        throw unavailable(GroupUnavailableException.Outcome.NOT_APPLIED, "replica " + replica
                + " cannot prove it still leads its group, so it does not read: " + why);
    }

    /** A write transaction begun as leader: the real connection, its capture, and the basis it runs on. */
    private record Open(Connection real, CapturingConnection capture, long basis) {}

    private final Map<Connection, Open> open = new ConcurrentHashMap<>();

    /**
     * {@link Replication#begin}: as the established leader, once the database holds every request's entry of the log,
     * takes the writer lock (held until commit or rollback) and begins a transaction whose every write, Gyro's
     * metadata included, is captured for the log.
     */
    @Override
    public Connection begin() throws SQLException {
        try {
            return begin(System.nanoTime() + spec.commitTimeout().toNanos());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException(name + ": interrupted while waiting to lead a transaction", "57014", e);
        }
    }

    private Connection begin(long deadline) throws SQLException, InterruptedException {
        lockCaughtUp(deadline);
        try {
            long basis = machine.stored().dataIndex();
            Connection c = db.writeConnection();
            CapturingConnection capture = CapturingConnection.wrapIncludingMetadata(c, db.dialect(), db.tables());
            open.put(capture.connection(), new Open(c, capture, basis));
            return capture.connection();
        } catch (SQLException | RuntimeException e) {
            writer.unlock();
            throw e;
        }
    }

    /**
     * {@link Replication#commit}: appends the transaction's row images to the log and answers once a majority holds
     * them and the state machine has committed the transaction with the entry's index (decision 22). Nothing written:
     * committed at once, without an entry.
     */
    @Override
    public void commit(Connection c) throws SQLException {
        try {
            commit(c, System.nanoTime() + spec.commitTimeout().toNanos());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw unavailable(GroupUnavailableException.Outcome.UNKNOWN, "interrupted while its log entry was on its way");
        }
    }

    private void commit(Connection c, long deadline) throws SQLException, InterruptedException {
        Open o = take(c);
        boolean handedOver = false;
        try {
            List<RowChange> changes = o.capture().changes();
            if (changes.isEmpty()) { // nothing for the other replicas: no log entry
                db.commit(o.real());
                handedOver = true;
                closeQuietly(o.real());
                return;
            }
            GroupEntry entry = new GroupEntry(o.basis(), session, requests.incrementAndGet(), replica, changes);
            PendingEntry own = new PendingEntry(o.real());
            machine.expect(entry.requestId(), own);
            handedOver = true;
            awaitCommitted(entry, own, append(entry), deadline);
        } finally {
            if (!handedOver) {
                db.rollback(o.real());
                closeQuietly(o.real());
            }
            writer.unlock();
        }
    }

    /** {@link Replication#rollback}: rolls back, appends nothing, lets the writer lock go. */
    @Override
    public void rollback(Connection c) {
        Open o = open.remove(c);
        if (o == null) return;
        try {
            db.rollback(o.real());
            closeQuietly(o.real());
        } finally {
            writer.unlock();
        }
    }

    private Open take(Connection c) throws SQLException {
        Open o = open.remove(c);
        if (o == null) throw new SQLException(name + ": no transaction of this replica is open on " + c);
        return o;
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException | RuntimeException e) {
            log.debug("closing a transaction's connection failed: {}", e.toString());
        }
    }

    /**
     * Takes the writer lock as leader, once this replica's database holds every request's entry of its log: a request
     * must run on the state the log leads to, or its row images would undo what came before. (Ratis' own entries, such
     * as the commit index it records after each commit, change no database and are not waited for.) The wait for the
     * log is made without the lock, which the state machine needs to apply entries.
     */
    private void lockCaughtUp(long deadline) throws GroupUnavailableException, InterruptedException {
        while (true) {
            if (!isLeader())
                throw unavailable(GroupUnavailableException.Outcome.NOT_APPLIED, "replica " + replica
                        + (closed ? " is stopped" : " is not its leader" + leaderHint()));
            long last = lastRequestIndexOrMax();
            // A leader killed or deposed meanwhile never applies its last entry: stop waiting at once and let the caller
            // find the new leader, rather than at the deadline.
            if (!signal.await(() -> machine.stored().appliedIndex() >= last || !isLeader(), deadline))
                throw unavailable(GroupUnavailableException.Outcome.NOT_APPLIED, "leader replica " + replica
                        + " has not committed its log up to index " + last + " within " + millis(spec.commitTimeout()));
            if (!isLeader()) continue; // refused at the top of the loop
            long left = deadline - System.nanoTime();
            if (left <= 0 || !writer.tryLock(left, TimeUnit.NANOSECONDS))
                throw unavailable(GroupUnavailableException.Outcome.NOT_APPLIED, "leader replica " + replica
                        + " was busy with other requests for " + millis(spec.commitTimeout()));
            if (!isLeader()) {
                writer.unlock();
                continue; // refused at the top of the loop
            }
            if (machine.stored().appliedIndex() >= lastRequestIndexOrMax()) return;
            writer.unlock();
        }
    }

    private long lastRequestIndexOrMax() {
        try {
            return lastRequestIndex();
        } catch (IOException e) {
            return Long.MAX_VALUE; // the log cannot be read: nothing may run on this database
        }
    }

    /** Appends {@code entry} through this replica's own Ratis server; the reply comes once it is applied here. */
    CompletableFuture<RaftClientReply> append(GroupEntry entry) {
        RaftClientRequest request = RaftClientRequest.newBuilder()
                .setClientId(clientId)
                .setServerId(server.getId())
                .setGroupId(spec.groupId())
                .setCallId(callIds.incrementAndGet())
                .setMessage(Message.valueOf(ByteString.copyFrom(entry.encode())))
                .setType(RaftClientRequest.writeRequestType())
                .build();
        try {
            return server.submitClientRequestAsync(request);
        } catch (IOException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private void awaitCommitted(GroupEntry entry, PendingEntry own, CompletableFuture<RaftClientReply> reply,
                                long deadline) throws GroupUnavailableException, SQLException, InterruptedException {
        String why;
        try {
            RaftClientReply r = awaitReply(reply, deadline);
            why = r == null ? (closed ? "leader replica " + replica + " stopped before its log entry committed"
                    : "its log entry was not committed by a majority within " + millis(spec.commitTimeout()))
                    : r.isSuccess() ? null : "the log did not take the entry: " + r.getException();
        } catch (ExecutionException e) {
            why = "the log did not take the entry: " + e.getCause();
        } catch (InterruptedException e) {
            giveUp(entry, own);
            throw e;
        }
        if (why != null && giveUp(entry, own))
            throw unavailable(GroupUnavailableException.Outcome.UNKNOWN, why);
        // Committed: the state machine has (or is about to have) the transaction.
        PendingEntry.Result result;
        try {
            result = own.result.get();
        } catch (ExecutionException e) {
            throw new SQLException(name + " could not apply its own committed log entry: " + e.getCause(), e.getCause());
        }
        if (result == PendingEntry.Result.STALE)
            throw unavailable(GroupUnavailableException.Outcome.NOT_APPLIED, "leader replica " + replica
                    + " ran the request on a database other leaders' entries had overtaken");
    }

    /**
     * The reply to an appended entry, or null at the deadline or once this replica is stopped: a stopped leader's entry
     * commits (on the next leader) or not without it, and its callers should go to the next leader at once.
     */
    private RaftClientReply awaitReply(CompletableFuture<RaftClientReply> reply, long deadline)
            throws ExecutionException, InterruptedException {
        long slice = GroupSignal.RECHECK.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || closed) return null;
            try {
                return reply.get(Math.min(left, slice), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                // look at the deadline and at closed again
            }
        }
    }

    /** Takes the transaction back and rolls it back, unless the state machine has already taken it. */
    private boolean giveUp(GroupEntry entry, PendingEntry own) {
        if (!own.abandon()) return false;
        machine.forget(entry.requestId());
        db.rollback(own.connection);
        closeQuietly(own.connection);
        return true;
    }

    static String millis(Duration d) {
        return d.toMillis() + " ms";
    }

    private GroupUnavailableException unavailable(GroupUnavailableException.Outcome outcome, String why) {
        return new GroupUnavailableException(spec.name(), reached(), spec.size(), outcome, why);
    }

    /**
     * Replicas this one reaches, itself included: as leader, the followers that answered within the shortest election
     * timeout (a leader sends heartbeats more often than that); otherwise itself, and the leader if it heard from
     * another one within that timeout.
     */
    int reached() {
        if (closed) return 0;
        try {
            RoleInfoProto role = division().getInfo().getRoleInfoProto();
            if (role.hasLeaderInfo()) {
                int n = 1;
                for (ServerRpcProto f : role.getLeaderInfo().getFollowerInfoList())
                    if (f.getLastRpcElapsedTimeMs() <= spec.timeouts().electionMin().toMillis()) n++;
                return n;
            }
            // A follower counts its leader only if it heard from it lately: a leader that lost its majority steps
            // down within the election timeout and must not count itself as the leader it heard last.
            if (role.hasFollowerInfo() && role.getFollowerInfo().hasLeaderInfo()) {
                ServerRpcProto leader = role.getFollowerInfo().getLeaderInfo();
                boolean other = GroupSpec.replicaOf(RaftPeerId.valueOf(leader.getId().getId())) != replica;
                return other && leader.getLastRpcElapsedTimeMs() <= spec.timeouts().electionMin().toMillis() ? 2 : 1;
            }
            return 1;
        } catch (IOException | RuntimeException e) {
            return 1;
        }
    }

    private String leaderHint() {
        try {
            int leader = GroupSpec.replicaOf(division().getInfo().getLeaderId());
            return leader < 0 ? " (no leader known)" : " (the leader is replica " + leader + ")";
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    /** Decision 11: a replica whose database fell behind its log stops; a restart re-applies from the log. */
    private void failStop(Throwable cause) {
        Thread t = new Thread(this::close, "gyro-replica-" + replica + "-stop");
        t.setDaemon(true);
        t.start();
    }

    /** Stops the Ratis server at once (what a crash does to the group) and closes the database. */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        try {
            server.close();
        } catch (IOException | RuntimeException e) {
            log.debug("{}: closing its Ratis server failed: {}", name, e.toString());
        }
        db.close();
        signal.changed();
    }

    @Override
    public String toString() {
        return name;
    }
}
