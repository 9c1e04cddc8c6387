package dev.gyro.replication;

import java.sql.Connection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The leader's open DBMS transaction of one request whose log entry is on its way to a majority
 * (docs/decisions/22-group-log.md). Exactly one side takes it: the state machine when the entry is applied
 * ({@link #claim}: it records the log index in this transaction and commits it), or the request's thread when it gives
 * up waiting ({@link #abandon}: it rolls back, and if the entry commits after all, the state machine applies its row
 * images like any other replica's).
 */
final class PendingEntry {

    private enum State { WAITING, CLAIMED, ABANDONED }

    /** What became of the entry once the state machine claimed it. */
    enum Result {
        /** Committed in the log and in this database. */
        COMMITTED,
        /** Committed in the log, but computed on a database another leader's entries had overtaken: not applied. */
        STALE
    }

    final Connection connection;
    final CompletableFuture<Result> result = new CompletableFuture<>();
    private final AtomicReference<State> state = new AtomicReference<>(State.WAITING);

    PendingEntry(Connection connection) {
        this.connection = connection;
    }

    /** The state machine takes the transaction; false when the request's thread already gave it up. */
    boolean claim() {
        return state.compareAndSet(State.WAITING, State.CLAIMED);
    }

    /** The request's thread takes the transaction back to roll it back; false when the state machine has it. */
    boolean abandon() {
        return state.compareAndSet(State.WAITING, State.ABANDONED);
    }
}
