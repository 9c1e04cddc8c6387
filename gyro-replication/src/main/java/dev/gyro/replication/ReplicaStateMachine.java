package dev.gyro.replication;

import dev.gyro.runtime.db.Database;
import dev.gyro.runtime.db.UpdateApplier;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Lock;
import java.util.function.Consumer;

/**
 * A replica's database as the state machine of its group's log (docs/decisions/22-group-log.md). Ratis calls
 * {@link #applyTransaction} once per committed entry, one at a time, in log order; each entry's rows and its log index
 * ({@link ReplicaProgress}) go into the database in ONE DBMS transaction, so an entry the database already holds is
 * skipped when Ratis delivers it again (after a restart it replays its log from the start): exactly once.
 *
 * <p>An entry the leader replica itself ran is {@linkplain #expect expected}: its rows are already in the leader's
 * open transaction, which gets the log index and commits here instead of applying them twice. Every other entry (a
 * follower's, or the leader's own that its request gave up on) is applied with {@link UpdateApplier}, the same applier
 * a token's updates use, under the replica's writer lock, the one a leader's request holds for its transaction.
 *
 * <p>An entry whose basis is not the last data entry applied was computed on a database other leaders' entries had
 * overtaken: every replica sees the same log, so every replica skips its rows alike (only its index is recorded).
 *
 * <p>An entry is decoded before it enters the log ({@link #startTransaction}): a message that is no {@link GroupEntry}
 * is refused to its sender and never appended, so no replica ever meets it (docs/decisions/32-group-log-tls.md).
 *
 * <p>A failure to apply an entry leaves the database behind its log: the replica stops (docs/decisions/11-fail-stop.md)
 * and a restart applies the entry again from the log.
 */
final class ReplicaStateMachine extends BaseStateMachine {

    private static final Logger log = LoggerFactory.getLogger(ReplicaStateMachine.class);

    private final String name;
    private final Database db;
    private final Lock writer;
    private final GroupSignal signal;
    private final Consumer<Throwable> failStop;
    private final Map<GroupEntry.RequestId, PendingEntry> expected = new ConcurrentHashMap<>();
    /** Where the database stands; changed only on Ratis' apply thread, after the DBMS commit. */
    private volatile ReplicaProgress.Position stored;
    /** The highest log index applied, entries without rows (Ratis' own) included. */
    private volatile long appliedIndex;

    final LongAdder entriesApplied = new LongAdder();
    final LongAdder ownEntriesCommitted = new LongAdder();
    final LongAdder redeliveriesSkipped = new LongAdder();
    final LongAdder staleEntries = new LongAdder();

    ReplicaStateMachine(String name, Database db, ReplicaProgress.Position stored, Lock writer, GroupSignal signal,
                        Consumer<Throwable> failStop) {
        this.name = name;
        this.db = db;
        this.stored = stored;
        this.appliedIndex = stored.appliedIndex();
        this.writer = writer;
        this.signal = signal;
        this.failStop = failStop;
    }

    ReplicaProgress.Position stored() {
        return stored;
    }

    long appliedIndex() {
        return appliedIndex;
    }

    /** The leader's request of {@code id} holds {@code pending}; its entry is to commit that transaction. */
    void expect(GroupEntry.RequestId id, PendingEntry pending) {
        expected.put(id, pending);
    }

    /** The request of {@code id} gave its transaction up. */
    void forget(GroupEntry.RequestId id) {
        expected.remove(id);
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
                GroupEntry.decode(request.getMessage().getContent().toByteArray());
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
                redeliveriesSkipped.increment(); // in the database since before a restart
            } else {
                GroupEntry entry = GroupEntry.decode(e.getStateMachineLogEntry().getLogData().toByteArray());
                PendingEntry own = expected.remove(entry.requestId());
                if (own != null && own.claim()) commitOwn(own, entry, e.getTerm(), e.getIndex());
                else applyUnderLock(entry, e.getTerm(), e.getIndex());
            }
            advanced(e.getTerm(), e.getIndex());
            return CompletableFuture.completedFuture(Message.EMPTY);
        } catch (SQLException | RuntimeException | Error ex) {
            log.error("{}: cannot apply log entry {}; stopping this replica (its database is behind its log, a restart"
                    + " applies the entry again)", name, e.getIndex(), ex);
            failStop.accept(ex);
            return CompletableFuture.failedFuture(ex);
        }
    }

    /**
     * The leader's own entry: its rows are in the open transaction; record the index there and commit. The
     * transaction's connection is closed before anything else touches the database (SQLite has one writer).
     */
    private void commitOwn(PendingEntry own, GroupEntry entry, long term, long index) throws SQLException {
        Connection c = own.connection;
        boolean current = entry.basis() == stored.dataIndex();
        SQLException refused = null;
        try {
            if (current) {
                ReplicaProgress.Position to = new ReplicaProgress.Position(term, index, index);
                try {
                    ReplicaProgress.record(c, to);
                    db.commit(c); // rolls back itself when it fails
                    stored = to;
                    ownEntriesCommitted.increment();
                    entriesApplied.increment();
                    own.result.complete(PendingEntry.Result.COMMITTED);
                    return;
                } catch (SQLException ex) {
                    refused = ex;
                }
            } else {
                db.rollback(c);
            }
        } finally {
            closeQuietly(c);
        }
        try {
            if (!current) {
                skipStale(term, index);
                own.result.complete(PendingEntry.Result.STALE);
            } else {
                // The DBMS refused the commit, but the entry is committed in the log: its row images are what every
                // other replica applies, so apply them here too, in a fresh transaction.
                log.warn("{}: the transaction of log entry {} did not commit ({}); applying its row images instead",
                        name, index, refused.toString());
                apply(entry, term, index);
                own.result.complete(PendingEntry.Result.COMMITTED);
            }
        } catch (SQLException | RuntimeException ex) {
            own.result.completeExceptionally(ex);
            throw ex;
        }
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException ex) {
            log.debug("closing a leader's transaction connection failed: {}", ex.toString());
        }
    }

    private void applyUnderLock(GroupEntry entry, long term, long index) throws SQLException {
        writer.lock();
        try {
            apply(entry, term, index);
        } finally {
            writer.unlock();
        }
    }

    private void apply(GroupEntry entry, long term, long index) throws SQLException {
        boolean current = entry.basis() == stored.dataIndex();
        if (!current) {
            skipStale(term, index);
            return;
        }
        ReplicaProgress.Position to = new ReplicaProgress.Position(term, index, index);
        db.inTransaction(false, c -> {
            UpdateApplier.apply(c, db.dialect(), entry.changes());
            ReplicaProgress.record(c, to);
            return null;
        });
        stored = to;
        entriesApplied.increment();
    }

    /** Records a stale entry as applied without its rows (every replica does the same). */
    private void skipStale(long term, long index) throws SQLException {
        ReplicaProgress.Position to = new ReplicaProgress.Position(term, index, stored.dataIndex());
        db.inTransaction(false, c -> {
            ReplicaProgress.record(c, to);
            return null;
        });
        stored = to;
        staleEntries.increment();
        log.warn("{}: log entry {} was computed on a database other entries had overtaken; not applied", name, index);
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
