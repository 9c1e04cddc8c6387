package dev.gyro.runtime.hook;

/**
 * What every transaction a request runs on the instance's database passes through first. The runtime's default,
 * {@link #NONE}, lets everything through at once; benchmarks plug in an emulated server of bounded capacity (the
 * gyro-emulation module's {@code Capacity}), so that on one small machine N instances can show the capacity of N
 * small servers.
 *
 * <p>Contract: {@link #enter()} and {@link #enterAhead()} may block; the runtime calls them on request and global
 * threads, never on the belt loop. The returned slot is closed exactly once, when the transaction is over (after
 * its commit or rollback, retries included). Applying other instances' state updates does not pass the gate.
 */
public interface TransactionGate {

    /** Lets every transaction through at once, with nothing added. */
    TransactionGate NONE = new TransactionGate() {
        @Override
        public Slot enter() {
            return Slot.NOTHING;
        }

        @Override
        public Slot enterAhead() {
            return Slot.NOTHING;
        }
    };

    /** An open hold on local requests; closing it lets them in again. Closing it twice does nothing. */
    interface Hold extends AutoCloseable {
        Hold NOTHING = () -> {};

        @Override
        void close();
    }

    /** A held slot; closing it frees the slot. */
    interface Slot extends AutoCloseable {
        Slot NOTHING = () -> {};

        @Override
        void close();

        /**
         * This slot, still held, serves the next transaction of the same token holder's conflict class (the global
         * requests that must run one after another, docs/decisions/20-postgres-ordered-commits.md): that one could not
         * wait ahead of the local requests while this one ran, since it starts only after this one's commit, and would
         * otherwise find the slot taken by a local request the moment this one let it go. May block as {@link #enter()}
         * does after getting a slot. The default adds nothing.
         *
         * @throws InterruptedException when interrupted (the slot is still held then; close it)
         */
        default void serveNext() throws InterruptedException {}
    }

    /**
     * A slot for a local request's transaction.
     *
     * @throws InterruptedException when interrupted while waiting (no slot is held then)
     */
    Slot enter() throws InterruptedException;

    /**
     * A slot for a global request the token holder runs: ahead of waiting local requests, since the token, and with
     * it every other instance's global requests, waits for it (paper Section VII-C: Gyro holds local operations
     * while the token holder executes global ones).
     *
     * @throws InterruptedException when interrupted while waiting (no slot is held then)
     */
    Slot enterAhead() throws InterruptedException;

    /**
     * Holds local requests back until the returned hold is closed: none is let in, so the slots that free up wait
     * for the global requests the token holder is about to run. The runtime opens a hold when the token arrives at
     * an instance with global requests waiting, before it applies the token's updates, and closes it once the
     * round's global requests are in (paper Section VII-C: Gyro holds local operations while the token holder
     * executes global ones; holding them from the token's arrival lets the transactions in service finish while the
     * updates are applied, instead of after). Never blocks. The default holds nothing.
     */
    default Hold holdLocals() {
        return Hold.NOTHING;
    }
}
