package dev.gyro.bench.twopc;

import javax.transaction.xa.XAException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * One call's transaction across the shards it touches: a branch begins on a shard the first time a statement goes
 * there; at the end a transaction that touched one shard commits there in one phase, and one that touched several
 * commits with two-phase commit: every branch prepares (the databases then hold its locks and its writes durably,
 * whatever happens to this coordinator), then every branch commits. A failure before every branch has prepared
 * rolls all of them back.
 */
final class DistributedTransaction implements Federation.Shards {

    private final XaShard[] shards;
    private final long gtrid;
    private final int home;
    private final XaShard.Branch[] branches;
    private int touched;
    private final java.util.BitSet wrote = new java.util.BitSet();
    /** Whether it committed across shards with two phases (for the statistics). */
    boolean twoPhase;

    private final java.util.function.ToIntFunction<Object> shardOf;

    DistributedTransaction(XaShard[] shards, long gtrid, int home, java.util.function.ToIntFunction<Object> shardOf) {
        this.shardOf = shardOf;
        this.shards = shards;
        this.gtrid = gtrid;
        this.home = home;
        this.branches = new XaShard.Branch[shards.length];
    }

    @Override
    public Connection on(int shard) throws SQLException {
        if (branches[shard] == null) {
            try {
                branches[shard] = shards[shard].begin(gtrid);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SQLException("interrupted while waiting for shard " + shard, "57014", e);
            }
            touched++;
        }
        return branches[shard].connection;
    }

    @Override
    public int count() {
        return shards.length;
    }

    @Override
    public int home() {
        return home;
    }

    @Override
    public int shardOf(Object value) {
        return shardOf.applyAsInt(value);
    }

    int touched() {
        return touched;
    }

    /** Records that a statement wrote on {@code shard}. */
    void wrote(int shard) {
        wrote.set(shard);
    }

    /**
     * Commits. Branches that only read commit first, each in one phase (every lock the transaction needs is held
     * by now, so letting its read locks go early keeps it two-phase locked; if a writer then fails, nothing was
     * written anyway). Then a single writing branch commits in one phase, and several commit with two-phase commit.
     * Any failure before the decision rolls every branch back.
     */
    void commit() throws SQLException {
        List<XaShard.Branch> begun = begun();
        List<XaShard.Branch> writers = new ArrayList<>();
        try {
            for (int i = 0; i < branches.length; i++) {
                if (branches[i] == null) continue;
                if (wrote.get(i)) writers.add(branches[i]);
                else branches[i].commitOnePhase();
            }
            if (writers.size() == 1) {
                writers.get(0).commitOnePhase();
                release(begun);
                return;
            }
            twoPhase = writers.size() > 1;
            List<XaShard.Branch> prepared = new ArrayList<>();
            try {
                for (XaShard.Branch b : writers) if (b.prepare()) prepared.add(b);
            } catch (XAException | SQLException e) {
                for (XaShard.Branch b : writers) b.rollback(prepared.contains(b));
                release(begun);
                throw failure("prepare", e);
            }
            // Every branch prepared: the decision is commit. A commit that fails here leaves a prepared branch for
            // recovery to finish; in this benchmark the run is then broken, and its checks say so (in-doubt branches).
            SQLException first = null;
            for (XaShard.Branch b : prepared) {
                try {
                    b.commitPrepared();
                } catch (XAException | SQLException e) {
                    if (first == null) first = failure("commit of a prepared branch", e);
                }
            }
            release(begun);
            if (first != null) throw first;
        } catch (XAException e) {
            for (XaShard.Branch b : begun) b.rollback(false);
            release(begun);
            throw failure("one-phase commit", e);
        }
    }

    void rollback() {
        List<XaShard.Branch> begun = begun();
        for (XaShard.Branch b : begun) b.rollback(false);
        release(begun);
    }

    private List<XaShard.Branch> begun() {
        List<XaShard.Branch> out = new ArrayList<>();
        for (XaShard.Branch b : branches) if (b != null) out.add(b);
        return out;
    }

    private void release(List<XaShard.Branch> begun) {
        for (XaShard.Branch b : begun) b.release();
        java.util.Arrays.fill(branches, null);
        wrote.clear();
    }

    /** An XA failure as an SQLException whose cause chain keeps the database's own error (retry decisions). */
    private static SQLException failure(String phase, Exception e) {
        if (e instanceof SQLException s) return s;
        SQLException out = new SQLException("2pc " + phase + " failed: " + e + " (XA error " + ((XAException) e).errorCode
                + ")", rolledBack((XAException) e) ? "40001" : "XA000", e);
        return out;
    }

    /** XA_RB* codes: the branch was rolled back by the database (a serialization failure, a deadlock): retry. */
    private static boolean rolledBack(XAException e) {
        return e.errorCode >= XAException.XA_RBBASE && e.errorCode <= XAException.XA_RBEND;
    }
}
