package dev.gyro.runtime;

import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.StateUpdate;
import dev.gyro.protocol.Value;
import dev.gyro.runtime.db.Database;
import dev.gyro.runtime.db.OrderedCommits;
import dev.gyro.runtime.hook.TransactionGate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;

/**
 * Global requests executed ahead of the token (docs/decisions.md, decision 27): a global request that arrives while
 * the token is elsewhere runs its DBMS transaction at once, in a slot of the transaction gate like a local request,
 * and then waits uncommitted, out of its slot, for its round; there only its commit is left, so the token is held
 * for commits, not for executions. {@link OrderedCommits} keeps the order: a parked attempt commits after every apply
 * and every commit meanwhile, and one whose reads any of them overwrote cannot commit (SSI aborts it, and its round
 * runs it again as ever).
 *
 * <p>Three things would otherwise deadlock, and each is taken care of here. An apply of other instances' updates
 * would wait for a parked attempt's row lock while the attempt waits for the token that waits for the apply: the
 * parked attempts that wrote one of the update's rows are rolled back before it is applied, and every parked one when
 * an apply lost a race anyway (a lock wait cut short, a cycle SSI broke on the apply's side). A parked attempt whose
 * request is not in the round that comes would hold its locks through it: it is rolled back when the round begins,
 * and no attempt starts ahead while the token is here. And the round's commit of a parked attempt takes no gate slot,
 * so local requests waiting for its row locks in their slots cannot keep it out.
 *
 * <p>An attempt that fails ahead, is rolled back or is not finished when its round begins leaves nothing behind: the
 * round runs its request as ever. Thread-safe.
 */
final class AheadGlobals implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(AheadGlobals.class);

    /** A request's transaction, run on the connection it is given, uncommitted. */
    interface Body {
        GlobalExecutor.Executed run(Connection c) throws Exception;
    }

    /** A request executed ahead, its transaction open, waiting for its round. */
    record Parked(Connection connection, OrderedCommits.Attempt turn, GlobalExecutor.Executed executed,
                  Set<RowKey> writes) {
        Parked withTurn(OrderedCommits.Attempt t) {
            return new Parked(connection, t, executed, writes);
        }
    }

    /** A row by table (case folded) and primary-key values. */
    record RowKey(String table, List<Value> key) {
        static RowKey of(RowChange c) {
            return new RowKey(c.table().toLowerCase(Locale.ROOT), c.keyValues());
        }
    }

    private enum State { RUNNING, PARKED }

    private static final class Entry {
        State state = State.RUNNING;
        boolean cancelled; // roll back when done: its round began, or an apply needs its rows
        Parked parked;
    }

    private final int self;
    private final Database db;
    private final OrderedCommits ordered;
    private final TransactionGate gate;
    private final ExecutorService threads;
    private final int most;
    private final Map<Long, Entry> entries = new HashMap<>(); // guarded by this
    private boolean tokenHere, applying, closed;               // guarded by this
    private long started, committedAhead, rolledBack;          // guarded by this

    AheadGlobals(int self, Database db, OrderedCommits ordered, TransactionGate gate, ExecutorService threads,
                 int most) {
        this.self = self;
        this.db = db;
        this.ordered = ordered;
        this.gate = gate;
        this.threads = threads;
        this.most = most;
    }

    /**
     * Runs request {@code id} ahead if it may: the token is elsewhere, no apply is under way, and fewer than the most
     * attempts run or wait ahead. Returns whether it was started.
     */
    boolean start(long id, Body body) {
        Entry e = new Entry();
        synchronized (this) {
            if (tokenHere || applying || closed || entries.size() >= most || entries.containsKey(id)) return false;
            entries.put(id, e);
            started++;
        }
        try {
            threads.execute(() -> run(id, e, body));
            return true;
        } catch (RejectedExecutionException stopping) {
            synchronized (this) {
                entries.remove(id);
            }
            return false;
        }
    }

    private void run(long id, Entry e, Body body) {
        TransactionGate.Slot slot = null;
        Connection c = null;
        OrderedCommits.Attempt turn = null;
        boolean parked = false;
        try {
            slot = gate.enter(); // the service time, as any transaction the instance runs
            if (!stillWanted(e)) return;
            c = db.writeConnection();
            turn = ordered.beginAhead(c);
            if (turn == null) return; // every commit slot is taken: the round runs it
            GlobalExecutor.Executed ran = body.run(c);
            Set<RowKey> writes = new HashSet<>();
            for (RowChange rc : ran.capture().changes()) writes.add(RowKey.of(rc));
            slot.close();
            slot = null;
            synchronized (this) {
                if (!e.cancelled && !closed) {
                    e.state = State.PARKED;
                    e.parked = new Parked(c, turn, ran, writes);
                    parked = true;
                }
            }
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
        } catch (Exception failed) { // the round runs it again, and reports whatever fails then
            log.debug("instance {}: global request {} failed ahead of the token: {}", self, id, failed.toString());
        } finally {
            if (slot != null) slot.close();
            if (!parked) {
                synchronized (this) {
                    if (entries.get(id) == e) entries.remove(id);
                }
                end(c, turn);
            }
        }
    }

    private synchronized boolean stillWanted(Entry e) {
        return !e.cancelled && !closed;
    }

    /**
     * The round takes request {@code id}: its parked attempt, which no one else will touch now, or null when it has
     * none (never started, failed, rolled back, or still running: then it is cancelled, and rolls back when done).
     */
    synchronized Parked claim(long id) {
        Entry e = entries.get(id);
        if (e == null) return null;
        if (e.state == State.PARKED) {
            entries.remove(id);
            committedAhead++;
            return e.parked;
        }
        e.cancelled = true;
        return null;
    }

    /** Request {@code id} will not run here after all (the belt refused it): whatever ran ahead for it is undone. */
    void drop(long id) {
        Parked p;
        synchronized (this) {
            Entry e = entries.get(id);
            if (e == null) return;
            if (e.state != State.PARKED) {
                e.cancelled = true;
                return;
            }
            entries.remove(id);
            rolledBack++;
            p = e.parked;
        }
        end(p.connection(), p.turn());
    }

    /** A claimed attempt that could not go on (its unpark failed): rolled back, its round runs it as ever. */
    void abandon(Parked p) {
        synchronized (this) {
            committedAhead--;
            rolledBack++;
        }
        end(p.connection(), p.turn());
    }

    /** The round is {@code round}: parked attempts of other requests are rolled back, running ones cancelled. */
    void roundBegins(Collection<Long> round) {
        Set<Long> in = new HashSet<>(round);
        List<Parked> out = new ArrayList<>();
        synchronized (this) {
            for (Iterator<Map.Entry<Long, Entry>> it = entries.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<Long, Entry> me = it.next();
                if (in.contains(me.getKey())) continue;
                Entry e = me.getValue();
                if (e.state == State.PARKED) {
                    out.add(e.parked);
                    it.remove();
                } else e.cancelled = true;
            }
            rolledBack += out.size();
        }
        for (Parked p : out) end(p.connection(), p.turn());
    }

    /**
     * Other instances' updates are about to be applied: parked attempts that wrote one of their rows are rolled back
     * (every parked one when {@code again}, the apply's earlier try having lost a race), and none starts until
     * {@link #applyEnded}. Returns whether attempts still run or wait ahead (the apply then waits for a lock only so
     * long, {@link OrderedCommits}, and reads their slots before it commits).
     */
    boolean beforeApply(List<StateUpdate> updates, boolean again) {
        List<Parked> out = new ArrayList<>();
        boolean any;
        synchronized (this) {
            applying = true;
            if (entries.isEmpty()) return false;
            Set<RowKey> rows = null;
            for (Iterator<Entry> it = entries.values().iterator(); it.hasNext(); ) {
                Entry e = it.next();
                if (e.state != State.PARKED) {
                    if (again) e.cancelled = true;
                    continue;
                }
                if (!again) {
                    if (rows == null) {
                        rows = new HashSet<>();
                        for (StateUpdate u : updates) for (RowChange rc : u.changes()) rows.add(RowKey.of(rc));
                    }
                    boolean overlaps = false;
                    for (RowKey k : e.parked.writes()) if (rows.contains(k)) {
                        overlaps = true;
                        break;
                    }
                    if (!overlaps) continue;
                }
                out.add(e.parked);
                it.remove();
            }
            rolledBack += out.size();
            any = !entries.isEmpty();
        }
        for (Parked p : out) end(p.connection(), p.turn());
        return any || !out.isEmpty();
    }

    synchronized void applyEnded() {
        applying = false;
    }

    /** No attempt starts ahead while the token is here: its round would not hold it. */
    synchronized void tokenArrived() {
        tokenHere = true;
    }

    synchronized void tokenPassed() {
        tokenHere = false;
    }

    /** Started ahead, committed from ahead (claimed by their rounds), rolled back while parked: for the metrics. */
    synchronized long[] counts() {
        return new long[]{started, committedAhead, rolledBack};
    }

    private void end(Connection c, OrderedCommits.Attempt turn) {
        try {
            if (c != null) db.rollback(c);
        } finally {
            if (turn != null) ordered.end(turn);
            if (c != null) {
                try {
                    c.close();
                } catch (SQLException | RuntimeException ignored) {
                    // the connection is gone, and its transaction with it
                }
            }
        }
    }

    @Override
    public void close() {
        List<Parked> out = new ArrayList<>();
        synchronized (this) {
            closed = true;
            for (Entry e : entries.values()) {
                if (e.state == State.PARKED) out.add(e.parked);
                else e.cancelled = true;
            }
            entries.clear();
        }
        threads.shutdownNow();
        for (Parked p : out) end(p.connection(), p.turn());
    }
}
