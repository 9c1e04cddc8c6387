package dev.gyro.replication;

import dev.gyro.runtime.db.Database;
import dev.gyro.runtime.db.UpdateApplier;
import org.apache.ratis.proto.RaftProtos.CommitInfoProto;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Lock;
import java.util.function.Consumer;

/**
 * A replica's database as the state machine of its group's log (docs/decisions/22-group-log.md). Ratis calls
 * {@link #applyTransaction} once per committed log entry, one at a time, in log order; the rows of the group entries it
 * carries (one, or several of a batch: {@link GroupEntry#decodeAll}) and its log index ({@link ReplicaProgress}) go
 * into the database in ONE DBMS transaction, so a log entry the database already holds is skipped when Ratis delivers
 * it again (after a restart it replays its log from the start): exactly once.
 *
 * <p>An entry of the leader's open batch ({@link LeaderBatch}, docs/decisions/42-group-commit.md) is only logged: its
 * rows are already in the batch's transaction, which commits with the index of the batch's last entry once every
 * entry appended from it is logged and no request runs in it ({@link #endIfSettled}). Every other entry (a
 * follower's, or the leader's own whose batch ended before the log committed it) is applied with {@link UpdateApplier},
 * the same applier a token's updates use, in a transaction of its own per log entry, under the replica's writer lock,
 * the one a leader's request holds while it runs in the batch. An entry that reaches a replica whose batch is open and
 * is not the batch's own was written by a newer leader: the batch ends first (rolled back, its logged entries applied
 * from their row images).
 *
 * <p>An entry that does not hold on the database ({@link GroupEntry#holdsOn}: it was computed on a database other
 * leaders' entries had overtaken, or after a batch entry the log did not keep) changes nothing: every replica sees the
 * same log, so every replica skips its rows alike (only its index is recorded).
 *
 * <p>An entry is decoded before it enters the log ({@link #startTransaction}): a message that is no {@link GroupEntry}
 * is refused to its sender and never appended, so no replica ever meets it (docs/decisions/32-group-log-tls.md).
 *
 * <p>A failure to apply an entry leaves the database behind its log: the replica stops (docs/decisions/11-fail-stop.md)
 * and a restart applies the entry again from the log. So does a batch abandoned as the replica stops: its logged
 * entries are rolled back with it. From either moment on this state machine applies nothing more
 * ({@link #stopApplying}): Ratis goes on delivering committed entries until its server has closed, and one applied to
 * a database that lacks the entries before it would record its index past them, so that the restart skipped them as
 * held already and judged every later entry stale.
 *
 * <p>The database is the log's snapshot (docs/decisions/45-database-as-snapshot.md): it records the index it holds, so
 * a snapshot ({@link #takeSnapshot}) writes nothing, it names that index, and Ratis purges the log before it. Only as
 * far as every replica of the group is known to have committed, so that a replica that was down catches up from the
 * log: one that is down pins the log where it stopped, up to {@link LogRetention#maxBehind()} entries. At start the
 * database's index is the snapshot Ratis resumes after ({@link #getLatestSnapshot}). A replica that fell behind the
 * purged log all the same is offered only a snapshot by its leader: it copies a live replica's database when it can
 * reach one ({@link #rebuildWith}), else stops and says to rebuild it.
 */
final class ReplicaStateMachine extends BaseStateMachine {

    private static final Logger log = LoggerFactory.getLogger(ReplicaStateMachine.class);

    private final String name;
    private final Database db;
    private final Lock writer;
    private final GroupSignal signal;
    private final Consumer<Throwable> failStop;
    /** The leader's open batch, or null; changed under the writer lock. */
    private volatile LeaderBatch batch;
    /** Where the database stands; changed only on Ratis' apply thread, after the DBMS commit. */
    private volatile ReplicaProgress.Position stored;
    /** The highest log index applied, entries without rows (Ratis' own) included. */
    private volatile long appliedIndex;
    /**
     * Set once the replica stops (a batch abandoned, an entry that failed to apply): the database may lack entries
     * Ratis counts as applied, so it takes no more; read under the writer lock before each entry is applied.
     */
    private volatile boolean stopped;
    /** How far behind a member may be and still bound a snapshot ({@link LogRetention#maxBehind()}). */
    private final long maxBehind;
    /** The last snapshot: the position the database held at start, or when Ratis last asked for one. */
    private volatile TermIndex snapshot;
    private volatile RaftServer.Division division;

    /** Copies a live replica's database into this one's, on {@code out}; null when there is none to copy from. */
    @FunctionalInterface
    interface Rebuild {
        ReplicaProgress.Position copyInto(Connection out) throws Exception;
    }

    /** How a replica that fell behind its group's purged log rebuilds its database, or null (it stops instead). */
    private volatile Rebuild rebuild;
    /** No rebuild before this nanoTime (a second after one failed). */
    private volatile long nextRebuild = System.nanoTime();

    final LongAdder entriesApplied = new LongAdder();
    final LongAdder ownEntriesCommitted = new LongAdder();
    /** Batches whose transaction committed with entries in it: DBMS commits of the leader's requests. */
    final LongAdder batchesCommitted = new LongAdder();
    /** Batches that ended rolled back with their logged entries applied from row images. */
    final LongAdder batchesRolledBack = new LongAdder();
    final LongAdder redeliveriesSkipped = new LongAdder();
    final LongAdder staleEntries = new LongAdder();

    final LongAdder snapshots = new LongAdder();
    /** Times this replica's database was rebuilt from a copy because it fell behind a purged log. */
    final LongAdder rebuilds = new LongAdder();

    ReplicaStateMachine(String name, Database db, ReplicaProgress.Position stored, TermIndex resumeAfter,
                        long maxBehind, Lock writer, GroupSignal signal,
                        Consumer<Throwable> failStop) {
        this.name = name;
        this.maxBehind = maxBehind;
        this.db = db;
        this.stored = stored;
        this.appliedIndex = stored.appliedIndex();
        this.writer = writer;
        this.signal = signal;
        this.failStop = failStop;
        if (resumeAfter != null) { // the snapshot Ratis resumes after (ReplicaLog): the database's index, or its log's end
            snapshot = resumeAfter;
            updateLastAppliedTermIndex(resumeAfter.getTerm(), resumeAfter.getIndex());
        }
    }

    void rebuildWith(Rebuild r) {
        rebuild = r;
    }

    @Override
    public void initialize(RaftServer server, RaftGroupId group, RaftStorage storage) throws IOException {
        super.initialize(server, group, storage);
        division = server.getDivision(group);
        getLifeCycle().startAndTransition(() -> {});
    }

    /** Ratis pauses the state machine before it reloads it on an installed snapshot. */
    @Override
    public void pause() {
        getLifeCycle().transition(org.apache.ratis.util.LifeCycle.State.PAUSING);
        getLifeCycle().transition(org.apache.ratis.util.LifeCycle.State.PAUSED);
    }

    /** Ratis resumes it on the installed snapshot: the database copied in, whose index {@link #snapshot} holds. */
    @Override
    public void reinitialize() {
        getLifeCycle().transition(org.apache.ratis.util.LifeCycle.State.STARTING);
        getLifeCycle().transition(org.apache.ratis.util.LifeCycle.State.RUNNING);
    }

    /**
     * A snapshot at the database's index, bounded by the commit index of every member (as this replica last learned
     * it): Ratis purges the log up to what it returns. Writes nothing; the previous snapshot while some member's commit
     * index is not known here yet.
     */
    @Override
    public long takeSnapshot() {
        ReplicaProgress.Position at = stored;
        long bound = at.appliedIndex();
        TermIndex before = snapshot;
        long last = before == null ? RaftLog.INVALID_LOG_INDEX : before.getIndex();
        RaftServer.Division d = division;
        if (d == null) return last;
        Set<RaftPeerId> known = new HashSet<>();
        long floor = at.appliedIndex() - maxBehind; // a member further behind is rebuilt from a copy when it returns
        for (CommitInfoProto info : d.getCommitInfos()) {
            known.add(RaftPeerId.valueOf(info.getServer().getId()));
            if (info.getCommitIndex() >= floor) bound = Math.min(bound, info.getCommitIndex());
        }
        // Every member of the configuration in force bounds it (both, while a membership change is under way): a
        // member that was replaced no longer does (docs/decisions/47-new-member.md).
        Set<RaftPeerId> members = new HashSet<>();
        for (var p : d.getRaftConf().getAllPeers())
            members.add(p.getId());
        if (!known.containsAll(members) || bound <= last) return last;
        TermIndex ti;
        try {
            ti = bound == at.appliedIndex() ? TermIndex.valueOf(at.appliedTerm(), bound) : d.getRaftLog().getTermIndex(bound);
        } catch (RuntimeException e) {
            ti = null;
        }
        if (ti == null) return last; // its term is no longer in the log: keep the previous snapshot
        snapshot = ti;
        snapshots.increment();
        log.debug("{}: snapshot at log index {} (the database holds {})", name, bound, at.appliedIndex());
        return bound;
    }

    @Override
    public SnapshotInfo getLatestSnapshot() {
        TermIndex ti = snapshot;
        return ti == null ? null : new SnapshotInfo() {
            @Override
            public TermIndex getTermIndex() {
                return ti;
            }

            @Override
            public List<FileInfo> getFiles() {
                return List.of(); // the database itself, which records its index
            }

            @Override
            public String toString() {
                return "the database at " + ti;
            }
        };
    }

    /**
     * The leader no longer has the log this replica needs (purged past where it stands: it was down longer than its
     * group keeps the log for it, {@link LogRetention#maxBehind()}): it cannot catch up from the log. Where a live
     * replica's database can be reached ({@link #rebuildWith}), it is copied into this one's in one transaction, which
     * then holds the log up to the copy's index, the snapshot Ratis resumes after; otherwise the replica stops and says
     * to rebuild it ({@code gyro cluster replace}).
     */
    @Override
    public CompletableFuture<TermIndex> notifyInstallSnapshotFromLeader(RoleInfoProto role, TermIndex firstInLog) {
        Rebuild r = rebuild;
        String behind = name + " stands at log index " + stored.appliedIndex() + " and its leader's log starts at "
                + firstInLog.getIndex();
        if (r == null) {
            IllegalStateException e = new IllegalStateException(behind + ": it cannot catch up from the log; rebuild it"
                    + " from a copy of a live replica's database (gyro cluster replace, in a cluster that gyro cluster start"
                    + " runs; gyro instance --replica R --rebuild --copy-from SOURCE, for a replica run as a process of its"
                    + " own)");
            stopped = true;
            log.error("{}", e.getMessage());
            failStop.accept(e);
            return CompletableFuture.failedFuture(e);
        }
        long now = System.nanoTime();
        if (now - nextRebuild < 0) // Ratis asks again at each of its leader's appends: a failed rebuild waits a second
            return CompletableFuture.failedFuture(new IllegalStateException(behind + ": the last rebuild failed"));
        log.warn("{}: rebuilding its database from a copy of a live replica's", behind);
        CompletableFuture<TermIndex> installed = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                installed.complete(install(r, firstInLog));
            } catch (Throwable e) {
                nextRebuild = System.nanoTime() + 1_000_000_000L;
                log.error("{}: the rebuild from a copy failed ({}); tried again in a second", name, e.toString());
                installed.completeExceptionally(e);
            }
        }, name + " rebuild");
        t.setDaemon(true);
        t.start();
        return installed;
    }

    private TermIndex install(Rebuild r, TermIndex firstInLog) throws Exception {
        writer.lock();
        try {
            if (stopped) throw new IllegalStateException(name + " is stopping");
            if (batch != null) throw new IllegalStateException(name + " has a leader's batch open");
            ReplicaProgress.Position[] at = {null};
            db.inTransaction(false, c -> {
                at[0] = r.copyInto(c);
                return null;
            });
            ReplicaProgress.Position p = at[0];
            if (p == null) throw new IllegalStateException("no live replica's database to copy from");
            if (p.appliedIndex() + 1 < firstInLog.getIndex())
                throw new IllegalStateException("the copy holds the log up to " + p.appliedIndex() + ", before the"
                        + " leader's log starts at " + firstInLog.getIndex());
            TermIndex ti = TermIndex.valueOf(p.appliedTerm(), p.appliedIndex());
            stored = p;
            if (p.appliedIndex() > appliedIndex) appliedIndex = p.appliedIndex();
            snapshot = ti;
            updateLastAppliedTermIndex(p.appliedTerm(), p.appliedIndex());
            rebuilds.increment();
            log.info("{}: its database is a copy of a live replica's at log index {}", name, p.appliedIndex());
            signal.changed();
            return ti;
        } finally {
            writer.unlock();
        }
    }

    ReplicaProgress.Position stored() {
        return stored;
    }

    long appliedIndex() {
        return appliedIndex;
    }

    /** The leader's open batch, or null. */
    LeaderBatch batch() {
        return batch;
    }

    /** Opens a batch on {@code real} as leader in {@code term}, on the database as it stands. Under the writer lock. */
    LeaderBatch open(Connection real, long term) {
        if (batch != null) throw new IllegalStateException(name + ": a batch is open already");
        ReplicaProgress.Position at = stored;
        LeaderBatch b = new LeaderBatch(real, term, at.dataIndex(), at.dataEntry());
        batch = b;
        return b;
    }

    /**
     * Called by Ratis on the leader for each write request before its entry is appended: a message that does not decode
     * as a {@link GroupEntry} is refused here (its sender gets a StateMachineException), so it never enters the log and
     * no replica tries to apply it. Entries that pass and still fail to apply keep the fail-stop of
     * {@link #applyTransaction}.
     */
    @Override
    public TransactionContext startTransaction(RaftClientRequest request) throws IOException {
        TransactionContext trx = super.startTransaction(request);
        if (request.is(org.apache.ratis.proto.RaftProtos.RaftClientRequestProto.TypeCase.WRITE)) {
            try {
                GroupEntry.decodeAll(request.getMessage().getContent().toByteArray());
            } catch (RuntimeException e) {
                log.warn("{}: refused a log entry from client {} that is no group entry: {}", name,
                        request.getClientId(), e.toString());
                trx.setException(new IllegalArgumentException("refused: not a group log entry of this Gyro ("
                        + e.getMessage() + ")", e));
            }
        }
        return trx;
    }

    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        LogEntryProto e = trx.getLogEntry();
        try {
            if (e.getIndex() <= stored.appliedIndex()) {
                // in the database since before a restart
                redeliveriesSkipped.add(GroupEntry.decodeAll(e.getStateMachineLogEntry().getLogData().toByteArray())
                        .size());
            } else {
                List<GroupEntry> entries = GroupEntry.decodeAll(e.getStateMachineLogEntry().getLogData().toByteArray());
                writer.lock();
                try {
                    if (stopped) {
                        // As after a crash: the restart applies it from the log, after what the database holds.
                        log.debug("{}: stopping; log entry {} is left to its restart", name, e.getIndex());
                        return CompletableFuture.completedFuture(Message.EMPTY);
                    }
                    apply(entries, e.getTerm(), e.getIndex());
                } finally {
                    writer.unlock();
                }
            }
            advanced(e.getTerm(), e.getIndex());
            return CompletableFuture.completedFuture(Message.EMPTY);
        } catch (SQLException | RuntimeException | Error ex) {
            stopped = true; // the entries after it would not hold on a database without it
            log.error("{}: cannot apply log entry {}; stopping this replica (its database is behind its log, a restart"
                    + " applies the entry again)", name, e.getIndex(), ex);
            failStop.accept(ex);
            return CompletableFuture.failedFuture(ex);
        }
    }

    /** The entries of one committed log entry at {@code index}, under the writer lock. */
    private void apply(List<GroupEntry> entries, long term, long index) throws SQLException {
        List<LeaderBatch.Logged> all = new ArrayList<>(entries.size());
        for (GroupEntry entry : entries) all.add(new LeaderBatch.Logged(entry, term, index));
        LeaderBatch b = batch;
        if (b != null && b.byEntry.containsKey(entries.get(0).requestId())) {
            int k = 0;
            for (; k < entries.size(); k++) {
                GroupEntry entry = entries.get(k);
                LeaderBatch.Member own = b.byEntry.get(entry.requestId());
                LeaderBatch.Logged last = b.logged.isEmpty() ? null : b.logged.get(b.logged.size() - 1);
                boolean holds = last == null ? entry.holdsOn(b.basis, b.basisEntry)
                        : entry.holdsOn(last.index(), last.entry().requestId());
                if (own == null || !holds) break;
                if (b.logged.isEmpty()) b.firstLoggedAt = Math.max(1, System.nanoTime());
                b.logged.add(all.get(k));
                own.logged = true;
            }
            if (k == entries.size()) {
                endIfSettled(b);
                return;
            }
            // The batch's transaction holds rows the log says nobody applies: it ends, and the rest of the log entry
            // is judged as any replica judges it (stale).
            end(b, LeaderBatch.Outcome.NOT_APPLIED, "its log entry followed one the log did not keep",
                    all.subList(k, all.size()));
        } else if (b != null) {
            // Not the batch's: a newer leader's entry, so this replica no longer leads, and the batch's entries the log
            // has not committed so far may come from the new leader's log or never.
            end(b, LeaderBatch.Outcome.UNKNOWN, "replica lost its leadership before its log entry committed", all);
        } else {
            applyImages(all);
        }
    }

    /**
     * Ends {@code b} by committing its transaction once nothing is left to wait for (every entry appended logged, no
     * request running). Under the writer lock.
     */
    void endIfSettled(LeaderBatch b) throws SQLException {
        if (!b.ended && b.settled()) end(b, null, null, List.of());
    }

    /**
     * Ends {@code b}, under the writer lock: commits its transaction with the index of its last logged entry when
     * {@code unlogged} is null and the DBMS takes the commit; else rolls it back and applies its logged entries from
     * their row images, as a follower would. Members whose entry was logged are answered COMMITTED, those whose entry
     * was not {@code unlogged} (NOT_APPLIED if it was never sent), and those that wrote nothing COMMITTED when everything
     * they saw was logged. {@code after}: entries of the log after the logged ones, applied in the same transaction.
     */
    void end(LeaderBatch b, LeaderBatch.Outcome unlogged, String why, List<LeaderBatch.Logged> after)
            throws SQLException {
        if (b.ended) return;
        b.ended = true;
        b.closed = true;
        if (batch == b) batch = null;
        boolean committed = false;
        // Whatever fails below (the DBMS refusing a rollback, a broken connection), every member is answered: a
        // member left unanswered would wait for its batch forever, and its client with it.
        try {
            try {
                if (unlogged == null && !b.logged.isEmpty()) {
                    LeaderBatch.Logged last = b.logged.get(b.logged.size() - 1);
                    ReplicaProgress.Position to = ReplicaProgress.Position.data(last.term(), last.index(),
                            last.entry().requestId());
                    try {
                        ReplicaProgress.record(b.real, to);
                        db.commit(b.real); // rolls back itself when it fails
                        stored = to;
                        committed = true;
                        batchesCommitted.increment();
                        ownEntriesCommitted.add(b.logged.size());
                        entriesApplied.add(b.logged.size());
                    } catch (SQLException ex) {
                        // The log committed the entries: their row images are what every other replica applies.
                        log.warn("{}: the batch of log entries up to {} did not commit ({}); applying their row images",
                                name, last.index(), ex.toString());
                    }
                } else if (unlogged == null) {
                    db.rollback(b.real); // nothing of the group's in it: its requests wrote nothing
                    committed = true;
                }
                if (!committed) {
                    db.rollback(b.real);
                    if (!b.logged.isEmpty()) batchesRolledBack.increment();
                }
            } finally {
                closeQuietly(b.real);
            }
            if (!committed) {
                List<LeaderBatch.Logged> apply = new ArrayList<>(b.logged);
                apply.addAll(after);
                applyImages(apply);
            }
        } finally {
            b.byEntry.clear();
            LeaderBatch.Outcome none = unlogged == null ? LeaderBatch.Outcome.NOT_APPLIED : unlogged;
            for (LeaderBatch.Member m : b.members) {
                boolean sawOnlyLogged = m.entriesBefore <= b.logged.size();
                LeaderBatch.Outcome o = m.entry != null ? (m.logged ? LeaderBatch.Outcome.COMMITTED
                        : m.reply == null ? LeaderBatch.Outcome.NOT_APPLIED : none)
                        : sawOnlyLogged ? LeaderBatch.Outcome.COMMITTED : LeaderBatch.Outcome.NOT_APPLIED;
                if (o != LeaderBatch.Outcome.COMMITTED && m.why == null)
                    m.why = m.entry == null ? "it read what its batch's requests wrote, which did not all commit" : why;
                m.outcome.complete(o);
            }
            signal.changed();
        }
    }

    /**
     * The replica stops: from now on no log entry touches the database, whatever Ratis still delivers before its server
     * has closed; the restart applies them from the log, after what the database holds. Under the writer lock, or on
     * Ratis' apply thread.
     */
    void stopApplying() {
        stopped = true;
    }

    /**
     * Ends {@code b} as the replica stops, under the writer lock: its transaction rolls back and nothing else touches
     * the database ({@link #stopApplying}): the entries it had logged are not in the database, so no later entry may be
     * applied or recorded; whatever the log committed is applied again from the log at restart.
     */
    void abandon(LeaderBatch b) {
        stopped = true;
        if (b.ended) return;
        b.ended = true;
        b.closed = true;
        if (batch == b) batch = null;
        db.rollback(b.real);
        closeQuietly(b.real);
        for (LeaderBatch.Member m : b.members) {
            if (m.why == null) m.why = "replica stopped before its batch committed";
            m.outcome.complete(LeaderBatch.Outcome.UNKNOWN);
        }
        signal.changed();
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException ex) {
            log.debug("closing a leader's batch connection failed: {}", ex.toString());
        }
    }

    /**
     * Applies committed entries from their row images in ONE transaction, in order, recording where the database then
     * stands: each entry that holds on what came before it ({@link GroupEntry#holdsOn}) with its rows, each other one
     * without (stale; every replica judges alike).
     */
    private void applyImages(List<LeaderBatch.Logged> entries) throws SQLException {
        if (entries.isEmpty()) return;
        ReplicaProgress.Position[] at = {stored};
        int[] applied = {0};
        db.inTransaction(false, c -> {
            ReplicaProgress.Position p = stored;
            int n = 0;
            for (LeaderBatch.Logged l : entries) {
                if (l.entry().holdsOn(p.dataIndex(), p.dataEntry())) {
                    UpdateApplier.apply(c, db.dialect(), l.entry().changes());
                    p = ReplicaProgress.Position.data(l.term(), l.index(), l.entry().requestId());
                    n++;
                } else {
                    p = p.skipping(l.term(), l.index());
                    log.warn("{}: an entry of log entry {} was computed on a database other entries had overtaken;"
                            + " not applied", name, l.index());
                }
            }
            ReplicaProgress.record(c, p);
            at[0] = p;
            applied[0] = n;
            return null;
        });
        stored = at[0];
        entriesApplied.add(applied[0]);
        staleEntries.add(entries.size() - applied[0]);
    }

    private void advanced(long term, long index) {
        updateLastAppliedTermIndex(term, index);
        if (index > appliedIndex) appliedIndex = index;
        signal.changed();
    }

    @Override
    public void notifyTermIndexUpdated(long term, long index) {
        super.notifyTermIndexUpdated(term, index); // an entry of Ratis' own (a leader's first, a configuration)
        if (index > appliedIndex) appliedIndex = index;
        signal.changed();
    }

    /** A linearizable read (GroupReplica.beforeRead): Ratis calls it once the log is applied far enough. */
    @Override
    public CompletableFuture<Message> query(Message request) {
        return CompletableFuture.completedFuture(Message.EMPTY);
    }

    @Override
    public void notifyLeaderChanged(RaftGroupMemberId groupMemberId, RaftPeerId newLeaderId) {
        signal.changed();
    }

    @Override
    public void notifyLeaderReady() {
        signal.changed();
    }
}
