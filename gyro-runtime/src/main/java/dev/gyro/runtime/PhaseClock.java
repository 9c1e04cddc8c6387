package dev.gyro.runtime;

import dev.gyro.runtime.hook.PhaseObserver;
import dev.gyro.runtime.hook.PhaseObserver.Phase;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Times the phases of each global request ({@link Phase}) and each visit of the token, from what the shell sees of
 * the belt: requests queued, the token's updates applied, requests handed out to execute, the token passed. The
 * belt stays a pure state machine (docs/decisions/03-pure-belt.md); this only watches its actions.
 *
 * <p>Threads: every method but {@link #arrived} and {@link #answered} runs on the belt loop. A {@link Timeline}'s
 * stamps written there are seen by the global thread that runs its request (handed over through its executor).
 */
final class PhaseClock {

    /** The stamps of one global request, {@link System#nanoTime()}; 0 for not yet. */
    static final class Timeline {
        final String transaction;
        final long arrived;
        long token;     // the token is here and this request waits in this visit's rounds
        long applied;   // and the token's updates are applied
        long executing; // handed out by the belt (ExecuteGlobal, ExecuteGlobals)
        long inSlot;    // through the transaction gate, on its global thread
        long gsnWait;   // total time waiting for gsn grants (parallel rounds)
        long committed; // its attempts are over
        int attempts;   // its DBMS transaction's runs so far

        Timeline(String transaction, long arrived) {
            this.transaction = transaction;
            this.arrived = arrived;
        }
    }

    private final InstanceMetrics metrics; // null: no meters (tests of the shell)
    private volatile PhaseObserver observer = PhaseObserver.NONE;

    // Belt loop only.
    private final List<Timeline> awaitingToken = new ArrayList<>();
    private final Set<Timeline> inHolder = new LinkedHashSet<>(); // the token is here, not yet executing
    private long visitStart;    // 0: the token is not here
    private long lastPassed;    // when this instance last passed the token, 0: never
    private long rotation;
    private int visitApplied;
    private long visitApply;
    private int visitGlobals;

    PhaseClock(InstanceMetrics metrics) {
        this.metrics = metrics;
    }

    void observe(PhaseObserver observer) {
        this.observer = observer;
    }

    /** A global request arrived at {@code arrivedNanos}; any thread. */
    Timeline arrived(String transaction, long arrivedNanos) {
        return new Timeline(transaction, arrivedNanos);
    }

    /** The belt took the request into Q; {@code wasParked}: it held a parked token, which the request woke. */
    void queued(Timeline t, boolean holdsToken, boolean wasParked) {
        long now = System.nanoTime();
        if (!holdsToken) {
            awaitingToken.add(t);
            return;
        }
        if (wasParked) startVisit(now, 0);
        // Applying happens within one action on this thread, so a request queued while the token is here finds its
        // updates applied already.
        t.token = t.applied = now;
        inHolder.add(t);
    }

    /** ApplyUpdates begins: the token arrived (Algorithm 1, line 7). */
    void tokenArrived() {
        long now = System.nanoTime();
        startVisit(now, lastPassed == 0 ? 0 : now - lastPassed);
        for (Timeline t : awaitingToken) {
            t.token = now;
            inHolder.add(t);
        }
    }

    /** ApplyUpdates is done: {@code updates} applied, and the token recorded as received. */
    void updatesApplied(int updates) {
        long now = System.nanoTime();
        visitApplied += updates;
        visitApply += now - visitStart;
        for (Timeline t : awaitingToken) t.applied = now;
        awaitingToken.clear();
        if (metrics != null) metrics.tokenApplied(updates, now - visitStart);
    }

    /** The belt handed the request out to execute. */
    void executing(Timeline t) {
        t.executing = System.nanoTime();
        if (!inHolder.remove(t)) t.token = t.applied = t.executing; // cannot happen: executed where it was queued
        visitGlobals++;
    }

    /** The request's attempt number {@code attempt} begins; on its global thread. */
    void attempt(Timeline t, int attempt) {
        t.attempts = attempt;
    }

    /** The request got through the transaction gate; on its global thread. */
    void inSlot(Timeline t) {
        t.inSlot = System.nanoTime();
    }

    /** The request waited for a gsn grant since {@code askedNanos} ({@link System#nanoTime()}); on its global thread. */
    void grantedSince(Timeline t, long askedNanos) {
        t.gsnWait += System.nanoTime() - askedNanos;
    }

    /** The request's attempts are over; on its global thread. */
    void committed(Timeline t) {
        t.committed = System.nanoTime();
    }

    /** The token is passed on (line 19), carrying {@code updatesCarried}. */
    void tokenPassed(int updatesCarried) {
        long now = System.nanoTime();
        // Requests that came after the round's snapshot wait for the token's next visit: their time so far was
        // waiting for the token, not for a turn in this visit.
        for (Timeline t : inHolder) {
            t.token = t.applied = 0;
            awaitingToken.add(t);
        }
        inHolder.clear();
        if (visitStart != 0) {
            PhaseObserver.TokenVisit v = new PhaseObserver.TokenVisit(visitStart, visitApplied, visitApply,
                    visitGlobals, updatesCarried, now - visitStart, rotation);
            if (metrics != null) metrics.tokenVisit(v);
            observer.tokenVisit(v);
        }
        visitStart = 0;
        lastPassed = now;
    }

    private void startVisit(long now, long rotationNanos) {
        visitStart = now;
        rotation = rotationNanos;
        visitApplied = 0;
        visitApply = 0;
        visitGlobals = 0;
    }

    /** The request's reply was handed on at {@code replied} ({@link System#nanoTime()}); on its global thread. */
    void answered(Timeline t, long replied) {
        long[] nanos = new long[Phase.values().length];
        long executing = t.executing == 0 ? t.arrived : t.executing;
        long applied = t.applied == 0 ? executing : t.applied;
        long token = t.token == 0 ? applied : t.token;
        long inSlot = t.inSlot == 0 ? executing : t.inSlot;
        long committed = t.committed == 0 ? replied : t.committed;
        nanos[Phase.TOKEN.ordinal()] = token - t.arrived;
        nanos[Phase.APPLY.ordinal()] = applied - token;
        nanos[Phase.TURN.ordinal()] = executing - applied;
        nanos[Phase.SLOT.ordinal()] = inSlot - executing;
        nanos[Phase.EXECUTE.ordinal()] = committed - inSlot - t.gsnWait;
        nanos[Phase.GSN.ordinal()] = t.gsnWait;
        nanos[Phase.REPLY.ordinal()] = replied - committed;
        PhaseObserver.Global g = new PhaseObserver.Global(t.transaction, t.arrived, nanos, t.attempts);
        if (metrics != null) metrics.globalPhases(nanos);
        observer.global(g);
    }
}
