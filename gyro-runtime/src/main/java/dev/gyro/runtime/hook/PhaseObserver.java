package dev.gyro.runtime.hook;

import java.util.Locale;

/**
 * Where a global request's time goes on the instance that owns it, and what each visit of the token does there
 * (paper Algorithm 1: a global request waits in Q for the token, lines 6 and 13; the holder applies the token's
 * updates, lines 8-12, then executes its snapshot Q', lines 14-18, and passes the token on, line 19). Benchmarks plug
 * in here; the runtime's default, {@link #NONE}, keeps nothing (the instance's metrics have the same figures as
 * timers either way).
 *
 * <p>Contract: {@link #global} is called once per global request that executed (committed, aborted or failed), on
 * the thread that ran it, after its reply was handed on; {@link #tokenVisit} once per token this instance passed,
 * on the belt loop. Both must return at once: they are on the global path.
 */
public interface PhaseObserver {

    /** Keeps nothing. */
    PhaseObserver NONE = new PhaseObserver() {
        @Override
        public void global(Global request) {}

        @Override
        public void tokenVisit(TokenVisit visit) {}
    };

    /** The consecutive phases of a global request, from its arrival at its owner to its reply. */
    enum Phase {
        /** In Q, until the token came to this instance (line 6); nothing when it arrived while the token was here. */
        TOKEN("waiting for the token"),
        /** The holder applying the updates the token brought (lines 8-12), before its round. */
        APPLY("the holder applying the token's updates"),
        /** At the holder, until its round executed it: earlier requests of the round, or the round before it. */
        TURN("waiting for its turn in the holder's round"),
        /** Handed to a global thread and through the transaction gate (an emulated server's slot and service time). */
        SLOT("global thread and transaction gate"),
        /** Its DBMS transaction, retries included (lines 14-15), its commit and outbox record included. */
        EXECUTE("its DBMS transaction, retries included"),
        /** Parallel rounds only (Appendix B): ready to commit, waiting for the belt to grant its gsn. */
        GSN("waiting for its gsn, parallel rounds only"),
        /** From its commit to its reply being handed on (reporting to the belt included). */
        REPLY("from its commit to its reply");

        private final String describe;

        Phase(String describe) {
            this.describe = describe;
        }

        /** Lower case, as in metric tags and reports. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        public String describe() {
            return describe;
        }
    }

    /**
     * One global request.
     *
     * @param transaction  its transaction
     * @param arrivedNanos {@link System#nanoTime()} at its arrival at its owner
     * @param nanos        nanoseconds spent in each {@link Phase}, indexed by its ordinal; they add up to the request's
     *                     time at the instance
     * @param attempts     how many times its DBMS transaction ran: more than once when it lost a race (a
     *                     serialization failure, a deadlock, a lock wait cut short) and ran again
     */
    record Global(String transaction, long arrivedNanos, long[] nanos, int attempts) {
        public long nanos(Phase phase) {
            return nanos[phase.ordinal()];
        }

        public long totalNanos() {
            long t = 0;
            for (long n : nanos) t += n;
            return t;
        }
    }

    /**
     * One visit of the token at this instance: from its arrival (or from the request that woke the parked token) to
     * passing it on.
     *
     * @param arrivedNanos   {@link System#nanoTime()} at its arrival
     * @param updatesApplied other instances' state updates applied here from it
     * @param applyNanos     applying them, with recording the token (one DBMS transaction)
     * @param globals        global requests this instance executed during the visit (its rounds' snapshots)
     * @param updatesCarried state updates the token carried on when passed (every instance's not yet seen by all)
     * @param holdNanos      from its arrival to passing it on
     * @param rotationNanos  from this instance's previous pass to this arrival (one rotation of the ring), 0 if none
     */
    record TokenVisit(long arrivedNanos, int updatesApplied, long applyNanos, int globals, int updatesCarried,
                      long holdNanos, long rotationNanos) {}

    void global(Global request);

    void tokenVisit(TokenVisit visit);
}
