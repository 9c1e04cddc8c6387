package dev.gyro.replication;

import dev.gyro.runtime.db.CapturingConnection;
import org.apache.ratis.protocol.RaftClientReply;

import java.sql.Connection;
import java.sql.Savepoint;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * One batch of a group's leader (docs/decisions/42-group-commit.md): ONE DBMS transaction on the leader's write
 * connection in which requests run one after another, each in a savepoint of its own and with its own capture, each
 * request's entry appended to the log once it has run and no other request waits to run (those that do add theirs to
 * the same log entry). The transaction commits once every entry appended from
 * it is committed in the log and applied (its last log index recorded in it); only then are its requests answered.
 * When it cannot commit so (leadership lost, an entry refused, the commit timeout, the DBMS refusing the commit), it
 * rolls back whole and the entries the log did commit are applied from their row images, as any follower applies
 * them.
 *
 * <p>Every field is guarded by the replica's writer lock, which a request holds from its {@code begin} to its
 * {@code commit} or {@code rollback}, and the state machine while it logs an entry or ends the batch; {@link #closed}
 * and {@link #ended} are also read without it, to decide whether to wait.
 */
final class LeaderBatch {

    /** What became of a request of the batch. */
    enum Outcome {
        /** Committed in the log and in this database; its answer stands. */
        COMMITTED,
        /** Surely applied nowhere: it may run again. */
        NOT_APPLIED,
        /** Its entry may still commit in the log, and then every replica applies it. */
        UNKNOWN
    }

    /** One request of the batch, from its {@code begin} to its answer. */
    static final class Member {
        final LeaderBatch batch;
        final CapturingConnection capture;
        final Savepoint savepoint;
        /** Its entry, or null while it runs and when it wrote nothing. */
        GroupEntry entry;
        CompletableFuture<RaftClientReply> reply;
        /** The batch's entries appended when it ended its part: what it saw. */
        int entriesBefore;
        boolean logged;
        final CompletableFuture<Outcome> outcome = new CompletableFuture<>();
        volatile String why;

        Member(LeaderBatch batch, CapturingConnection capture, Savepoint savepoint) {
            this.batch = batch;
            this.capture = capture;
            this.savepoint = savepoint;
        }
    }

    /** An entry of the batch the log committed: applied in the open transaction, not yet in a committed one. */
    record Logged(GroupEntry entry, long term, long index) {}

    final Connection real;
    final long term;
    final long basis;
    final GroupEntry.RequestId basisEntry;
    /** When the log committed its first entry ({@link System#nanoTime()}), or 0. */
    volatile long firstLoggedAt;
    final List<Member> members = new ArrayList<>();
    final Map<GroupEntry.RequestId, Member> byEntry = new HashMap<>();
    final List<Logged> logged = new ArrayList<>();
    /** Members whose entry is made but not yet appended: sent together, in one log entry, when nobody else waits to run. */
    final List<Member> unsent = new ArrayList<>();
    /** The last entry appended from the batch (the basis's entry before the first): what the next one follows. */
    GroupEntry.RequestId head;
    volatile int appended;
    /** The member running now, holding the writer lock; null between requests. */
    Member active;
    /** Takes no more requests: full, old, or a request failed in it. */
    volatile boolean closed;
    /** Committed or rolled back: its connection is given back. */
    volatile boolean ended;

    LeaderBatch(Connection real, long term, long basis, GroupEntry.RequestId basisEntry) {
        this.real = real;
        this.term = term;
        this.basis = basis;
        this.basisEntry = basisEntry;
        this.head = basisEntry;
    }

    /** Every entry appended is logged and no request runs: nothing is left to wait for. */
    boolean settled() {
        return active == null && logged.size() == appended;
    }
}
