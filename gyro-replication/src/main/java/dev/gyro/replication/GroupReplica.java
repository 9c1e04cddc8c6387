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
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One replica of a group (docs/decisions/22-group-log.md): its own database, its Ratis server for the group's log, and
 * the database as the log's state machine ({@link ReplicaStateMachine}).
 *
 * <p>As leader it runs requests ({@link #submit}) in batches (docs/decisions/42-group-commit.md): once its database
 * holds every entry of its log, it opens ONE DBMS transaction, and requests run in it one after another (the writer
 * lock), each in a savepoint of its own on capturing connections; each request's row images are appended to the log
 * once it has run and no other request waits to run (the requests that ran back to back share one log entry), and the
 * next request starts at once, on what the earlier ones wrote. The transaction stays open
 * until every entry appended from it is committed and applied, then commits with the last one's log index, and only
 * then are its requests answered. An entry that does not commit within {@link GroupSpec#commitTimeout()}, or a
 * leadership lost on the way, rolls the transaction back and applies from their row images the entries the log did
 * commit: the leader's database never holds what the group did not commit.
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

    static {
        // Ratis ends the whole process (System.exit) when, among others, its server cannot bind its port; Gyro runs
        // inside other programs (an attached application, a test JVM) and reports that as an error of the replica's
        // start instead: Ratis then throws its ExitException, turned into an IOException by start.
        org.apache.ratis.util.ExitUtils.disableSystemExit();
    }

    private GroupReplica(GroupSpec spec, int replica, Database db, ReplicaProgress.Position at, TermIndex resumeAfter,
                         Path logDir, GroupSignal signal, boolean joining) throws IOException {
        this.spec = spec;
        this.replica = replica;
        this.name = "replica " + replica + " of " + spec.name();
        this.db = db;
        this.signal = signal;
        this.machine = new ReplicaStateMachine(name, db, at, resumeAfter, spec.retention().maxBehind(), writer,
                signal, this::failStop);
        boolean known = Files.isDirectory(logDir.resolve(spec.groupId().getUuid().toString()));
        this.server = RaftServer.newBuilder()
                .setServerId(spec.peerId(replica))
                // A new member starts knowing no member, itself included, so that it never campaigns: it learns the
                // group's membership from the leader that adds it (replaceMember). Once it has a log, its log says.
                .setGroup(joining && !known ? RaftGroup.valueOf(spec.groupId()) : spec.raftGroup())
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
        return start(spec, replica, database, logDir, signal, prepare, null);
    }

    /**
     * As {@link #start(GroupSpec, int, String, Path, GroupSignal, dev.gyro.runtime.db.SqlWork)}, rebuilding from a
     * copy of {@code rebuildFrom}'s database ({@link #rebuildFrom}) when it falls behind its group's purged log; null:
     * it stops then.
     */
    static GroupReplica start(GroupSpec spec, int replica, String database, Path logDir, GroupSignal signal,
                              dev.gyro.runtime.db.SqlWork<?> prepare, java.util.function.Supplier<Database> rebuildFrom)
            throws SQLException, IOException {
        return start(spec, replica, database, logDir, signal, prepare, rebuildFrom, false);
    }

    /**
     * Starts a new member in the place of replica {@code replica} of a group, on the log address {@code spec} gives it
     * (docs/decisions/47-new-member.md): on its own new database and log, knowing no member until the group's leader
     * adds it ({@link #replaceMember}); it catches up from its leader's log, or from a copy of {@code rebuildFrom}'s
     * database where that log was purged.
     */
    static GroupReplica join(GroupSpec spec, int replica, String database, Path logDir, GroupSignal signal,
                             dev.gyro.runtime.db.SqlWork<?> prepare, java.util.function.Supplier<Database> rebuildFrom)
            throws SQLException, IOException {
        return start(spec, replica, database, logDir, signal, prepare, rebuildFrom, true);
    }

    private static GroupReplica start(GroupSpec spec, int replica, String database, Path logDir, GroupSignal signal,
                                      dev.gyro.runtime.db.SqlWork<?> prepare,
                                      java.util.function.Supplier<Database> rebuildFrom, boolean joining)
            throws SQLException, IOException {
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
            TermIndex resumeAfter = ReplicaLog.snapshot(logDir.resolve(spec.groupId().getUuid().toString()), at,
                    "replica " + replica + " of " + spec.name());
            r = new GroupReplica(spec, replica, db, at, resumeAfter, logDir, signal, joining);
            if (rebuildFrom != null) r.rebuildFrom(rebuildFrom);
            try {
                r.server.start();
            } catch (org.apache.ratis.util.ExitUtils.ExitException e) { // Ratis' own "terminate", refused (below)
                Throwable why = e.getCause() != null ? e.getCause() : e;
                throw new IOException(r.name + " cannot start its group log on " + spec.replicas().get(replica) + ": "
                        + why.getMessage() + (why.getCause() != null ? " (" + why.getCause().getMessage() + ")" : ""), e);
            }
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
        // A replica that resumes from a long pause (a stopped process, a long GC) steps down if it led (Ratis does so
        // for any pause beyond the step-down wait above) and rejoins its group as a follower, however long it was
        // away: Ratis' default shuts its server down after a pause of 60 s, and the replica then served its group no
        // more until restarted (docs/decisions/40-peers-abandon-a-frozen-leader.md). Terms and the log's majority
        // keep a resumed replica from committing or serving anything stale, whatever the pause.
        RaftServerConfigKeys.setCloseThreshold(p, TimeDuration.valueOf(365, TimeUnit.DAYS));
        // A follower appends the entries of each request after those of the one before, in the order they came, as
        // Raft has it. Ratis' "compose" (its default since 3.2) chains each request's append on the previous one's
        // future and takes the previous one's entries as present before they are: once one append failed, every later
        // one failed with it, and a resumed old leader never caught up again (seen after freezes of 20 and 60 s:
        // "Difference between entry index and RaftLog's last index ... is greater than 1").
        RaftServerConfigKeys.Log.setAppendEntriesComposeEnabled(p, false);
        // Reads (docs/decisions/46-reads-by-lease.md): linearizable, served by the leader at once while it holds its
        // lease (a majority answered appends sent less than 0.9 x the shortest election timeout ago: no other leader
        // can be elected before a whole election timeout after that), else once a round of heartbeats confirms it
        // still leads (Ratis' read index). The 0.1 left is the allowance for replicas' clocks running at different rates.
        RaftServerConfigKeys.Read.setOption(p, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
        RaftServerConfigKeys.Read.setLeaderLeaseEnabled(p, true);
        RaftServerConfigKeys.Read.setLeaderLeaseTimeoutRatio(p, 0.9);
        // No log entries of Ratis' own recording the commit index after each commit: each costs every replica a write
        // and an fsync of its log between two batches (docs/decisions/42-group-commit.md). A restarted replica then
        // learns the commit index from its leader before it applies, which it must reach to serve anyway.
        RaftServerConfigKeys.Log.setLogMetadataEnabled(p, false);
        // The log does not grow forever (docs/decisions/45-database-as-snapshot.md): every snapshotEvery applied
        // entries Ratis asks the state machine for a snapshot, which is the database's index (nothing is written), and
        // purges the closed segments before it that every member has committed. Small segments keep what a purge
        // leaves behind small. A follower is never sent a snapshot: one that needs a purged log is rebuilt.
        LogRetention keep = spec.retention();
        RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, true);
        RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(p, keep.snapshotEvery());
        RaftServerConfigKeys.Log.setPurgeGap(p, (int) Math.min(Integer.MAX_VALUE, keep.snapshotEvery()));
        RaftServerConfigKeys.Log.setSegmentSizeMax(p, SizeInBytes.valueOf(keep.segmentBytes()));
        RaftServerConfigKeys.Log.setPreallocatedSize(p, SizeInBytes.valueOf(Math.min(keep.segmentBytes(), 1L << 20)));
        RaftServerConfigKeys.Log.Appender.setInstallSnapshotEnabled(p, false);
        // The state machine bounds its snapshots by its members' commit indexes itself (maxBehind), so Ratis purges up
        // to the snapshot.
        RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, true);
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
            if (e != null && e.hasStateMachineLogEntry())
                n += GroupEntry.decodeAll(e.getStateMachineLogEntry().getLogData().toByteArray()).size();
        }
        return n;
    }

    /** The index of the first entry this replica's log still holds: what it purged lies before it. */
    public long logStartIndex() throws IOException {
        return division().getRaftLog().getStartIndex();
    }

    /**
     * Where this replica copies a live replica's database from when it fell behind its group's purged log
     * (docs/decisions/45-database-as-snapshot.md): {@code source} gives the database of a replica that serves, or null.
     */
    private void rebuildFrom(java.util.function.Supplier<Database> source) {
        machine.rebuildWith(out -> {
            Database from = source.get();
            if (from == null || from == db) return null;
            return Snapshot.copyInto(from, out, spec, replica, name + "'s", table -> log.debug("{}: {}", name, table));
        });
    }

    /**
     * Hands this replica's leadership to replica {@code to} (Ratis' leadership transfer: {@code to} is caught up, then
     * elected); true once Ratis says it was, false when it was not within {@code within}.
     */
    public boolean transferLeadership(int to, Duration within) throws InterruptedException {
        RaftPeer target = member(to);
        if (target == null) return false;
        var request = new org.apache.ratis.protocol.TransferLeadershipRequest(clientId, spec.peerId(replica),
                spec.groupId(), callIds.incrementAndGet(), target.getId(), within.toMillis());
        try {
            return server.transferLeadershipAsync(request).get(within.toMillis() + 1_000, TimeUnit.MILLISECONDS)
                    .isSuccess();
        } catch (ExecutionException | TimeoutException | IOException e) {
            log.info("{}: leadership not handed to replica {}: {}", name, to, e.toString());
            return false;
        }
    }

    /** The member of the group's current configuration in place {@code slot}, as this replica knows it; or null. */
    private RaftPeer member(int slot) {
        for (RaftPeer p : members()) if (GroupSpec.replicaOf(p.getId()) == slot) return p;
        return null;
    }

    /** The members of the group's current configuration as this replica knows it; none once it closed. */
    private List<RaftPeer> members() {
        try {
            return new ArrayList<>(division().getRaftConf().getCurrentPeers());
        } catch (IOException e) {
            return List.of();
        }
    }

    /** The log address of the group's member in place {@code slot} as this replica's configuration has it; or null. */
    public String memberAddress(int slot) {
        RaftPeer p = member(slot);
        return p == null ? null : p.getAddress();
    }

    /**
     * As this group's leader, replaces the member in place {@code slot}, whose machine is lost, by the new member that
     * {@code moved} puts there on another log address, started already ({@link #join}): one Ratis membership change
     * (docs/decisions/47-new-member.md). Ratis first brings the new member up to date (from its log, or the new member
     * copies a live replica's database), then commits the old and new configurations jointly, then the new one, while
     * the group goes on committing with the majority of both. Returns once the new configuration committed.
     *
     * @throws GroupUnavailableException when this replica does not lead, another change is under way, or the new
     *                                   member did not catch up within {@code within}; the configuration is then the
     *                                   old one, or the new one if it committed meanwhile ({@link #memberAddress})
     */
    public void replaceMember(int slot, GroupSpec moved, Duration within) throws GroupUnavailableException,
            InterruptedException {
        RaftPeer lost = member(slot);
        RaftPeer joiner = moved.raftPeer(slot);
        if (lost != null && lost.getId().equals(joiner.getId())) return; // done already
        var request = new org.apache.ratis.protocol.SetConfigurationRequest(clientId, spec.peerId(replica),
                spec.groupId(), callIds.incrementAndGet(), MemberRequest.replacing(members(), slot, joiner));
        String why;
        try {
            RaftClientReply r = server.setConfigurationAsync(request).get(within.toMillis(), TimeUnit.MILLISECONDS);
            if (r.isSuccess()) {
                log.info("{}: the member in place {} is {} now, in place of {}", name, slot, joiner.getAddress(),
                        lost == null ? "none" : lost.getAddress());
                return;
            }
            why = String.valueOf(r.getException());
        } catch (ExecutionException | TimeoutException | IOException | RuntimeException e) {
            why = e instanceof TimeoutException ? "not done within " + millis(within) : e.toString();
        }
        throw unavailable(GroupUnavailableException.Outcome.UNKNOWN, name + " could not put the new member at "
                + joiner.getAddress() + " in place " + slot + ": " + why);
    }

    /**
     * {@link #replaceMember} at whichever replica leads the group ({@code leader}: it, or null while none does), again
     * while leadership moves or the new member still catches up, until {@code deadline} (System.nanoTime).
     */
    static void replaceMember(java.util.function.Supplier<GroupReplica> leader, int slot, GroupSpec moved,
                              GroupSignal signal, long deadline) throws GroupUnavailableException, InterruptedException {
        while (true) {
            GroupReplica l = leader.get();
            try {
                if (l == null) throw new GroupUnavailableException(moved.name(), 0, moved.size(),
                        GroupUnavailableException.Outcome.NOT_APPLIED, "no leader to make the change");
                l.replaceMember(slot, moved, Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
                return;
            } catch (GroupUnavailableException e) {
                if (System.nanoTime() >= deadline) throw e;
                log.info("{}: {}; trying again", moved.name(), e.getMessage());
                signal.await(() -> false, Math.min(deadline, System.nanoTime() + 100_000_000L)); // a round's pause
            }
        }
    }

    /** Times this replica's database was rebuilt from a copy because it fell behind its group's purged log. */
    public long rebuilds() {
        return machine.rebuilds.sum();
    }

    /** Snapshots this replica took since it started (each names its database's index; docs/decisions/45). */
    public long snapshots() {
        return machine.snapshots.sum();
    }

    /** The last log index whose effect the database records (its rows, or nothing for a stale entry). */
    public long storedIndex() {
        return machine.stored().appliedIndex();
    }

    /** Entries whose rows this replica's database took, its own committed ones included, since it started. */
    public long entriesApplied() {
        return machine.entriesApplied.sum();
    }

    /** DBMS commits of this replica's batches as leader, each of one or more of its requests' entries. */
    public long batchesCommitted() {
        return machine.batchesCommitted.sum();
    }

    /** Entries of this replica's own requests committed in its batches' transactions. */
    public long ownEntriesCommitted() {
        return machine.ownEntriesCommitted.sum();
    }

    /** Batches that ended rolled back, the entries the log had committed applied from their row images. */
    public long batchesRolledBack() {
        return machine.batchesRolledBack.sum();
    }

    /** Requests waiting to run on this replica's write connection (a test's way to line them up in one batch). */
    int writersWaiting() {
        return writer.getQueueLength();
    }

    /** How many entries the open batch appended to the log so far, or -1 when none is open. */
    int openBatchEntries() {
        LeaderBatch b = machine.batch();
        return b == null ? -1 : b.appended;
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

    /**
     * A batch takes no request after it holds this many entries, or once this long has passed since the log committed
     * its first entry (docs/decisions/42-group-commit.md): under a load that never leaves it idle it still closes and
     * commits, its first requests waiting about one log round more than their own. Requests that arrive meanwhile wait
     * for it and open the next.
     */
    static final int BATCH_ENTRIES = 256;
    static final Duration BATCH_AGE = Duration.ofMillis(20);

    /** Requests between the wait in {@link #begin} and the writer lock: they are about to run, likely in the batch. */
    private final AtomicInteger joining = new AtomicInteger();

    /** The requests running in a batch, by the connection {@link #begin()} gave them. */
    private final Map<Connection, LeaderBatch.Member> open = new ConcurrentHashMap<>();

    /**
     * {@link Replication#begin}: as the established leader, joins the open batch (or opens one, once the database holds
     * every request's entry of the log) and begins the request in a savepoint of its own, every write captured, Gyro's
     * metadata included (docs/decisions/42-group-commit.md). Holds the writer lock until the request's commit or
     * rollback: requests of a batch run one at a time, in the order of their entries in the log.
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
        while (true) {
            if (!isLeader())
                throw unavailable(GroupUnavailableException.Outcome.NOT_APPLIED, "replica " + replica
                        + (closed ? " is stopped" : " is not its leader" + leaderHint()));
            // Wait without the lock, which the state machine needs to apply entries and end batches: for a batch to
            // join, or for none and a database that holds the whole log (a request must run on the state the log
            // leads to, or its row images would undo what came before). A leader killed or deposed meanwhile never
            // applies its last entry: stop waiting at once and let the caller find the new leader.
            if (!signal.await(() -> !isLeader() || joinable(machine.batch())
                    || machine.batch() == null && caughtUp(), deadline))
                throw unavailable(GroupUnavailableException.Outcome.NOT_APPLIED, "leader replica " + replica
                        + " has not committed its log up to index " + lastRequestIndexOrMax() + " within "
                        + millis(spec.commitTimeout()));
            if (!isLeader()) continue; // refused at the top of the loop
            long left = deadline - System.nanoTime();
            boolean locked;
            joining.incrementAndGet();
            try {
                locked = left > 0 && writer.tryLock(left, TimeUnit.NANOSECONDS);
            } finally {
                joining.decrementAndGet();
            }
            if (!locked) {
                throw unavailable(GroupUnavailableException.Outcome.NOT_APPLIED, "leader replica " + replica
                        + " was busy with other requests for " + millis(spec.commitTimeout()));
            }
            boolean joined = false;
            try {
                if (!isLeader()) {
                    LeaderBatch b = machine.batch();
                    if (b != null) send(b);
                    continue;
                }
                LeaderBatch b = machine.batch();
                if (b != null && !joinable(b)) {
                    b.closed = true; // old or full: it ends once its entries are logged
                    send(b);
                    endIfSettled(b);
                    continue;
                }
                if (b == null) {
                    if (!caughtUp()) continue;
                    b = machine.open(db.writeConnection(), term());
                }
                Connection c = join(b);
                joined = true;
                return c;
            } catch (SQLException | RuntimeException e) {
                LeaderBatch b = machine.batch();
                if (b != null && b.active == null) {
                    b.closed = true;
                    send(b);
                    endIfSettled(b);
                }
                throw e;
            } finally {
                if (!joined) {
                    writer.unlock();
                    signal.changed();
                }
            }
        }
    }

    private boolean joinable(LeaderBatch b) {
        if (b == null || b.closed || b.appended >= BATCH_ENTRIES || b.term != term()) return false;
        long logged = b.firstLoggedAt;
        return logged == 0 || System.nanoTime() - logged < BATCH_AGE.toNanos();
    }

    private boolean caughtUp() {
        return machine.stored().appliedIndex() >= lastRequestIndexOrMax();
    }

    /** The request begins in {@code b}, in a savepoint of its own. Under the writer lock. */
    private Connection join(LeaderBatch b) throws SQLException {
        Savepoint savepoint = b.real.setSavepoint();
        CapturingConnection capture = CapturingConnection.wrapIncludingMetadata(b.real, db.dialect(), db.tables());
        LeaderBatch.Member m = new LeaderBatch.Member(b, capture, savepoint);
        b.members.add(m);
        b.active = m;
        open.put(capture.connection(), m);
        return capture.connection();
    }

    /**
     * {@link Replication#commit}: ends the request's part of its batch (its entry, if it wrote anything, appended to the
     * log behind the batch's earlier ones: at once when no other request waits to run, else together with theirs, in one
     * log entry, by the last of them) and answers once its batch has committed: every entry of the batch committed by a
     * majority and applied, and the batch's transaction committed with the last one's index
     * (docs/decisions/42-group-commit.md).
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
        LeaderBatch.Member m = take(c);
        LeaderBatch b = m.batch;
        try {
            List<RowChange> changes = m.capture.changes(); // throws when the capture is spoiled: rolled back below
            b.real.releaseSavepoint(m.savepoint);
            if (!changes.isEmpty()) {
                GroupEntry entry = new GroupEntry(b.basis, session, requests.incrementAndGet(), replica,
                        b.appended + 1, b.head, changes);
                m.entry = entry;
                b.byEntry.put(entry.requestId(), m);
                b.appended++;
                b.head = entry.requestId();
                b.unsent.add(m);
            }
            m.entriesBefore = b.appended;
            b.active = null;
            if (b.appended >= BATCH_ENTRIES) b.closed = true;
            if (b.closed || joining.get() == 0) send(b);
            endIfSettled(b);
        } catch (SQLException | RuntimeException e) {
            if (m.entry == null) rollbackMember(m);
            throw e;
        } finally {
            writer.unlock();
            signal.changed();
        }
        awaitOutcome(m, deadline);
    }

    /** {@link Replication#rollback}: rolls the request back to its savepoint; it appends nothing. */
    @Override
    public void rollback(Connection c) {
        LeaderBatch.Member m = open.remove(c);
        if (m == null) return;
        try {
            rollbackMember(m);
        } finally {
            writer.unlock();
            signal.changed();
        }
    }

    /**
     * Under the writer lock: undoes what the request did in its batch. The batch then takes no more requests: on
     * PostgreSQL a serialization failure dooms the whole transaction, and MariaDB rolls it back whole on a deadlock, so a
     * failure may have spoiled more than the savepoint; a savepoint that cannot be rolled back to says so, and the batch
     * ends rolled back (its logged entries applied from their row images).
     */
    private void rollbackMember(LeaderBatch.Member m) {
        LeaderBatch b = m.batch;
        b.members.remove(m);
        if (b.active == m) b.active = null;
        b.closed = true;
        try {
            if (b.ended) return;
            send(b);
            try {
                b.real.rollback(m.savepoint);
                b.real.releaseSavepoint(m.savepoint);
            } catch (SQLException | RuntimeException e) {
                log.debug("{}: a request's savepoint could not be rolled back to ({}); its batch ends rolled back",
                        name, e.toString());
                machine.end(b, LeaderBatch.Outcome.UNKNOWN, "its batch's transaction was spoiled by a failing request",
                        List.of());
                return;
            }
            machine.endIfSettled(b);
        } catch (SQLException | RuntimeException e) {
            log.error("{}: ending a batch failed; stopping this replica", name, e);
            failStop(e);
        }
    }

    private LeaderBatch.Member take(Connection c) throws SQLException {
        LeaderBatch.Member m = open.remove(c);
        if (m == null) throw new SQLException(name + ": no transaction of this replica is open on " + c);
        return m;
    }

    /**
     * Waits for the request's batch to end. At the deadline, when the log did not take an entry of the batch, or when
     * this replica stops or no longer leads, the batch ends rolled back: whatever the log committed of it is applied
     * from its row images, and the requests whose entries were not committed so far are answered UNKNOWN.
     */
    private void awaitOutcome(LeaderBatch.Member m, long deadline) throws SQLException, InterruptedException {
        long slice = GroupSignal.RECHECK.toNanos();
        long waitedSince = System.nanoTime();
        LeaderBatch.Outcome outcome = null;
        while (outcome == null) {
            long left = deadline - System.nanoTime();
            String why = null;
            if (closed) why = "leader replica " + replica + " stopped before its log entry committed";
            else if (left <= 0) why = "its log entry was not committed by a majority within " + millis(spec.commitTimeout());
            else if (m.reply != null && m.reply.isDone()) why = refusal(m.reply);
            if (why == null && !m.outcome.isDone() && !isLeader())
                why = "replica " + replica + " lost its leadership before its log entry committed";
            if (why == null && m.reply == null && m.entry != null && System.nanoTime() - waitedSince > slice)
                sendUnsent(); // left for a request that was to run next and did not
            if (why != null && !m.outcome.isDone()) endBatch(m.batch, why);
            try {
                outcome = m.outcome.get(Math.max(1, Math.min(left, slice)), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                // look again
            } catch (ExecutionException e) {
                throw new SQLException(name + " could not end its batch: " + e.getCause(), e.getCause());
            }
        }
        switch (outcome) {
            case COMMITTED -> { }
            case NOT_APPLIED -> throw unavailable(GroupUnavailableException.Outcome.NOT_APPLIED, "leader replica "
                    + replica + ": " + m.why);
            case UNKNOWN -> throw unavailable(GroupUnavailableException.Outcome.UNKNOWN, m.why);
        }
    }

    /**
     * Appends the entries of {@code b}'s requests not yet sent, in ONE log entry, in the order they ran. Under the writer
     * lock: Ratis puts it in the log before this returns, so the log's order is the order the requests ran in.
     */
    private void send(LeaderBatch b) {
        if (b.unsent.isEmpty() || b.ended) return;
        List<GroupEntry> entries = new ArrayList<>(b.unsent.size());
        for (LeaderBatch.Member m : b.unsent) entries.add(m.entry);
        CompletableFuture<RaftClientReply> reply = append(entries);
        for (LeaderBatch.Member m : b.unsent) m.reply = reply;
        b.unsent.clear();
    }

    /** {@link #send} for the open batch, taking the writer lock. */
    private void sendUnsent() throws InterruptedException {
        writer.lockInterruptibly();
        try {
            LeaderBatch b = machine.batch();
            if (b != null && b.active == null) send(b);
        } finally {
            writer.unlock();
        }
    }

    /** Why an entry's append failed, or null while its reply says nothing against it. */
    private static String refusal(CompletableFuture<RaftClientReply> reply) {
        try {
            RaftClientReply r = reply.getNow(null);
            return r == null || r.isSuccess() ? null : "the log did not take the entry: " + r.getException();
        } catch (CompletionException | java.util.concurrent.CancellationException e) {
            return "the log did not take the entry: " + (e.getCause() == null ? e : e.getCause());
        }
    }

    /**
     * {@link ReplicaStateMachine#endIfSettled}, under the writer lock; a batch that fails to end (its transaction
     * neither committed nor rolled back) leaves this replica's database unknown: the replica stops, as
     * {@link #endBatch} does.
     */
    private void endIfSettled(LeaderBatch b) throws SQLException {
        try {
            machine.endIfSettled(b);
        } catch (SQLException | RuntimeException e) {
            failedToEnd(b, e);
            throw e;
        }
    }

    /** A batch that could not end: its database is unknown, so the replica stops. Under the writer lock. */
    private void failedToEnd(LeaderBatch b, Exception e) {
        log.error("{}: ending a batch failed; stopping this replica", name, e);
        machine.abandon(b);
        failStop(e);
    }

    /** Ends {@code b} rolled back for {@code why}, unless it ended meanwhile. */
    private void endBatch(LeaderBatch b, String why) {
        writer.lock();
        try {
            if (closed) machine.abandon(b);
            else machine.end(b, LeaderBatch.Outcome.UNKNOWN, why, List.of());
        } catch (SQLException | RuntimeException e) {
            failedToEnd(b, e);
        } finally {
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
        return append(List.of(entry));
    }

    /** Appends {@code entries} in one log entry ({@link GroupEntry#encodeAll}). */
    private CompletableFuture<RaftClientReply> append(List<GroupEntry> entries) {
        RaftClientRequest request = RaftClientRequest.newBuilder()
                .setClientId(clientId)
                .setServerId(server.getId())
                .setGroupId(spec.groupId())
                .setCallId(callIds.incrementAndGet())
                .setMessage(Message.valueOf(ByteString.copyFrom(GroupEntry.encodeAll(entries))))
                .setType(RaftClientRequest.writeRequestType())
                .build();
        try {
            return server.submitClientRequestAsync(request);
        } catch (IOException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
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
        machine.stopApplying(); // at once: the close below may come after Ratis delivered more entries
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
        writer.lock(); // a request running in the open batch ends its part first
        try {
            machine.stopApplying(); // as a crash: what Ratis still delivers before it has closed is left to the restart
            LeaderBatch b = machine.batch();
            if (b != null) machine.abandon(b); // its requests' outcomes are UNKNOWN
        } finally {
            writer.unlock();
        }
        db.close();
        signal.changed();
    }

    @Override
    public String toString() {
        return name;
    }
}
