package dev.gyro.sim;

import dev.gyro.protocol.Action;
import dev.gyro.protocol.Codec;
import dev.gyro.protocol.DurableState;
import dev.gyro.protocol.Ring;
import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.StateUpdate;
import dev.gyro.protocol.Token;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * One instance's simulated DBMS: the application's replicated table plus the Gyro metadata (last applied gsn,
 * token status, token, outbox, and the ring's membership as the row of {@value Ring#TABLE}, decision 44). It is the
 * instance's disk: a crash keeps it whole. Each method is one atomic
 * DBMS transaction (the simulator never interrupts a method), performing the runtime's duty from
 * {@link Action}'s Javadoc exactly. Metadata is stored encoded, as a real metadata table stores it.
 *
 * <p>Every state update whose writes land in the table is reported to the {@link CommitLog}: that is what the
 * checkers see, like a DBMS's commit log, independent of what the protocol believes.
 */
class SimDatabase {

    /** What the checkers observe of the databases' commits. */
    interface CommitLog {
        /** {@code update}'s writes committed at {@code instance}, applied from the token. */
        void applied(int instance, StateUpdate update);

        /** Global request {@code requestId} committed at {@code instance} as {@code update}. */
        void executed(int instance, long requestId, StateUpdate update);
    }

    /** Makes the database of one instance (tests substitute deliberately broken ones). */
    interface Factory {
        SimDatabase create(int instance, DurableState initial, CommitLog log);
    }

    protected final int instance;
    protected final CommitLog log;
    private final TreeMap<Long, Long> rows = new TreeMap<>();
    private long lastGsn;
    private DurableState.TokenStatus tokenStatus;
    private byte[] token;
    private final List<byte[]> outbox = new ArrayList<>();
    // The one row of Ring.TABLE (docs/decisions/44-ring-changes.md), as the last applied or committed update that
    // changed the ring wrote it; null while the ring is the one the cluster started with.
    private RowChange ringRow;
    /** The keys each committed transaction wrote, by commit number: what a snapshot taken earlier did not see. */
    private final TreeMap<Long, List<Long>> committedWrites = new TreeMap<>();
    private long commits;

    SimDatabase(int instance, DurableState initial, CommitLog log) {
        this.instance = instance;
        this.log = log;
        this.lastGsn = initial.lastGsn();
        this.tokenStatus = initial.tokenStatus();
        this.token = initial.token() == null ? null : Codec.encodeToken(initial.token());
        for (StateUpdate u : initial.outbox()) outbox.add(Codec.encodeUpdate(u));
        this.ringRow = initial.ring() == null ? null : initial.ring().change();
    }

    /** What a restarting instance reads back (the {@link DurableState} of the protocol). */
    DurableState durableState() {
        return new DurableState(lastGsn, tokenStatus, token == null ? null : Codec.decodeToken(token),
                outbox.stream().map(Codec::decodeUpdate).toList(), ring());
    }

    /** The ring's membership as this database records it, or null for the one the cluster started with. */
    Ring ring() {
        return ringRow == null ? null : Ring.in(List.of(ringRow));
    }

    /**
     * {@link Action.ApplyUpdates}, one transaction: the updates in order, the token as held, lastGsn, and an empty
     * outbox.
     */
    void applyUpdates(Action.ApplyUpdates action) {
        List<Long> keys = new ArrayList<>();
        for (StateUpdate u : action.updates()) {
            applyUpdate(u);
            keys.addAll(GlobalRequest.keys(u.changes()));
        }
        committed(keys);
        tokenStatus = DurableState.TokenStatus.HELD;
        token = Codec.encodeToken(action.token());
        lastGsn = action.lastGsn();
        outbox.clear();
    }

    /**
     * {@link Action.ApplyAhead}, one transaction: the updates, which follow the last applied gsn, and lastGsn; the
     * token's record is left as it is.
     */
    void applyAhead(Action.ApplyAhead action) {
        if (tokenStatus == DurableState.TokenStatus.HELD || action.updates().get(0).gsn() != lastGsn + 1)
            throw new IllegalStateException("instance " + instance + " asked to apply gsns from "
                    + action.updates().get(0).gsn() + " ahead of the token at last gsn " + lastGsn + ", token "
                    + tokenStatus);
        List<Long> keys = new ArrayList<>();
        for (StateUpdate u : action.updates()) {
            applyUpdate(u);
            keys.addAll(GlobalRequest.keys(u.changes()));
        }
        committed(keys);
        lastGsn = action.lastGsn();
    }

    protected final void applyUpdate(StateUpdate u) {
        GlobalRequest.apply(u.changes(), rows);
        recordRing(u);
        log.applied(instance, u);
    }

    /**
     * {@link Action.ExecuteGlobal} that wrote something, one transaction: the request's writes, its gsn as the
     * last applied one, and its update in the outbox.
     */
    void commitGlobal(long requestId, StateUpdate update) {
        GlobalRequest.apply(update.changes(), rows);
        recordRing(update);
        committed(GlobalRequest.keys(update.changes()));
        lastGsn = update.gsn();
        outbox.add(Codec.encodeUpdate(update));
        log.executed(instance, requestId, update);
    }

    /** An update that changes the ring writes its row of {@link Ring#TABLE}, in the transaction that applies it. */
    protected void recordRing(StateUpdate u) {
        if (u.ring() != null) ringRow = u.ring().change();
    }

    private void committed(List<Long> keys) {
        commits++;
        if (!keys.isEmpty()) committedWrites.put(commits, keys);
    }

    /** How many transactions committed so far: a snapshot taken now sees exactly these. */
    long commits() {
        return commits;
    }

    /** Whether a transaction committed after the first {@code seen} wrote one of {@code keys}. */
    boolean writtenSince(long seen, long[] keys) {
        for (List<Long> written : committedWrites.tailMap(seen, false).values())
            for (long k : keys) if (written.contains(k)) return true;
        return false;
    }

    /** For tests of the checkers only: a deliberately broken runtime that records gsns it did not apply. */
    protected final void skipTo(long gsn) {
        lastGsn = gsn;
    }

    /** For tests of the checkers only: a deliberately broken runtime that loses its newest outbox entry. */
    protected final void dropLastOutboxEntry() {
        outbox.remove(outbox.size() - 1);
    }

    /**
     * For tests of the checkers only: another replica's database, equal to this one now and reporting to the same
     * commit log; a deliberately broken failover commits an entry there instead of here.
     */
    SimDatabase copy() {
        SimDatabase other = new SimDatabase(instance, durableState(), log);
        other.rows.putAll(rows);
        other.committedWrites.putAll(committedWrites);
        other.commits = commits;
        return other;
    }

    /**
     * A new member's database (docs/decisions/44-ring-changes.md): a copy of this one's rows, last gsn and ring, taken
     * in one read transaction; the joiner has held no token and executed nothing, so token NONE and an empty outbox.
     * {@code into} is the joiner's empty database, made by the run's factory; {@code withRing} is false only for a test's
     * deliberately broken copy, which leaves the ring's row out.
     */
    SimDatabase copyInto(SimDatabase into, boolean withRing) {
        if (!into.rows.isEmpty() || into.lastGsn != 0)
            throw new IllegalStateException("instance " + into.instance + " joins on a database that is not empty");
        into.rows.putAll(rows);
        into.lastGsn = lastGsn;
        into.ringRow = withRing ? ringRow : null;
        into.tokenStatus = DurableState.TokenStatus.NONE;
        into.token = null;
        into.outbox.clear();
        return into;
    }

    /** {@link Action.PassToken}: the token is recorded as passed before it is sent. */
    void recordPassed(Token passed) {
        tokenStatus = DurableState.TokenStatus.PASSED;
        token = Codec.encodeToken(passed);
    }

    /** The replicated table, read-only. */
    NavigableMap<Long, Long> rows() {
        return Collections.unmodifiableNavigableMap(rows);
    }

    long lastGsn() {
        return lastGsn;
    }
}
