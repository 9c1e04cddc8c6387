package dev.gyro.runtime;

import dev.gyro.app.TransactionCatalog;
import dev.gyro.wire.Reply;
import dev.gyro.wire.Request;
import dev.gyro.protocol.Value;
import dev.gyro.runtime.db.Database;
import dev.gyro.runtime.db.DeadlinePassedException;
import dev.gyro.runtime.db.Failures;
import dev.gyro.runtime.db.MetadataStore;
import dev.gyro.runtime.hook.RequestObserver;
import dev.gyro.runtime.hook.TransactionGate;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Algorithm 1, lines 2-4: a local request runs at once on this instance's DBMS, concurrently with everything else,
 * and is answered. Nothing else is on its way: one table lookup, the transaction gate, one DBMS transaction (retried
 * when it loses a race, {@link Database#inTransaction}). Safe to call from any number of threads.
 */
final class LocalExecutor {

    /** The reply recorded for a request's id by its earlier run (docs/decisions/37-request-ids.md). */
    private record Recorded(byte[] reply) {}

    /** What the local path needs of a transaction, found with one lookup. */
    record LocalTransaction(TransactionCatalog.Entry entry, boolean readOnly) {}

    private final int self;
    private final Database db;
    private final Map<String, LocalTransaction> transactions;
    private final TransactionGate gate;
    private final Replies replies;
    private final InstanceStats stats;
    private final AtomicLong requestIds;
    private final Function<Request, List<Value>> partitionOf;
    private volatile RequestObserver observer = RequestObserver.NONE;

    LocalExecutor(int self, Database db, Map<String, LocalTransaction> transactions, TransactionGate gate,
                  Replies replies, InstanceStats stats, AtomicLong requestIds,
                  Function<Request, List<Value>> partitionOf) {
        this.self = self;
        this.db = db;
        this.transactions = Map.copyOf(transactions);
        this.gate = gate;
        this.replies = replies;
        this.stats = stats;
        this.requestIds = requestIds;
        this.partitionOf = partitionOf;
    }

    /** True when {@code transaction} is a local transaction that only reads. */
    boolean readOnly(String transaction) {
        LocalTransaction local = transactions.get(transaction);
        return local != null && local.readOnly();
    }

    /** What a failure of this instance's database means, and whether it answers. */
    Failures failures() {
        return db.failures();
    }

    void observe(RequestObserver observer) {
        this.observer = observer;
    }

    /** Runs {@code request} here, now, on the calling thread, and returns its reply. */
    Reply execute(Request request) {
        return execute(request, Arguments.NONE);
    }

    /** As {@link #execute(Request)}, on {@code converted}, its arguments checked and converted already. */
    Reply execute(Request request, Object[] converted) {
        return execute(request, converted, DeadlinePassedException.NONE);
    }

    /**
     * As {@link #execute(Request, Object[])}, for a client that waits for the answer until {@code deadline} (a
     * {@link System#nanoTime()} value, or {@link DeadlinePassedException#NONE}; docs/decisions/37-request-ids.md): the
     * request is not committed once it has passed, and a database that cannot take it in time is named in the answer.
     * A write with an id that ran before is answered from its record, looked up in the same transaction.
     */
    Reply execute(Request request, Object[] converted, long deadline) {
        LocalTransaction local = transactions.get(request.transaction());
        if (local == null)
            return replies.error(Reply.Status.BAD_REQUEST, "unknown transaction '" + request.transaction() + "'");
        long id = requestIds.getAndIncrement();
        long now = System.currentTimeMillis();
        RequestObserver watcher = observer;
        RequestObserver.Attempt[] last = new RequestObserver.Attempt[1];
        boolean[] ran = new boolean[1]; // the last attempt's work is done: a failure now is its commit's
        Arguments arguments = new Arguments(converted);
        try (TransactionGate.Slot slot = gate.enter()) {
            Object result = db.inTransaction(local.readOnly(), deadline, c -> {
                ran[0] = false;
                if (request.id() != null && !local.readOnly()) {
                    byte[] before = MetadataStore.recordedReply(c, request.id());
                    if (before != null) return new Recorded(before); // commits nothing
                }
                RequestObserver.Attempt attempt = watcher.begin(observed(request, watcher), c, null);
                last[0] = attempt;
                Object r = arguments.invoke(local.entry(), new RequestContext(attempt.connection(), now,
                        replies.seed(id)), request.parameters());
                attempt.ran();
                // A client's retry gets this reply, recorded with the request's writes (decisions 24 and 37).
                if (request.id() != null && !local.readOnly())
                    MetadataStore.recordReply(c, request.id(), replies.local(r).encode(), now);
                ran[0] = true;
                return r;
            });
            if (result instanceof Recorded r) {
                stats.repeatedRequests.increment();
                return Reply.decode(r.reply());
            }
            GlobalAttempts.observed(last[0], id);
            stats.local.increment();
            return replies.local(result);
        } catch (DeadlinePassedException e) {
            return replies.deadlinePassed(request, e, db.failures().health());
        } catch (Exception e) {
            if (Replies.groupUnavailable(e) == null && db.failures().kind(e) == Failures.Kind.UNREACHABLE)
                return replies.databaseUnavailable(request, e, ran[0], db.failures().health());
            return replies.failure(request, e);
        }
    }

    /**
     * A local request whose work runs on the caller's own thread, from here to {@link Open#commit()} or
     * {@link Open#rollback()}: an attached application's call (docs/decisions/34-attaching.md). It passes the gate,
     * runs as one DBMS transaction on a connection of this instance's database and is seen by what observes requests,
     * as {@link #execute} runs a request; but the caller's code cannot be run again, so a lost race reaches the caller.
     *
     * @throws SQLException when the transaction cannot begin (no such local transaction, the database refuses)
     */
    Open open(Request request) throws SQLException {
        LocalTransaction local = transactions.get(request.transaction());
        if (local == null) throw new SQLException("unknown local transaction '" + request.transaction() + "'");
        TransactionGate.Slot slot;
        try {
            slot = gate.enter();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted while " + request.transaction() + " waited for the database", e);
        }
        Connection c = null;
        try {
            c = local.readOnly() ? db.readConnection() : db.writeConnection();
            RequestObserver watcher = observer;
            return new Open(requestIds.getAndIncrement(), slot, c, watcher.begin(observed(request, watcher), c, null));
        } catch (SQLException | RuntimeException e) {
            if (c != null) {
                db.rollback(c);
                c.close();
            }
            slot.close();
            throw e;
        }
    }

    /** A local request open on its caller's thread ({@link #open}). */
    final class Open implements GyroInstance.OpenLocal {
        private final long id;
        private final TransactionGate.Slot slot;
        private final Connection connection;
        private final RequestObserver.Attempt attempt;

        private Open(long id, TransactionGate.Slot slot, Connection connection, RequestObserver.Attempt attempt) {
            this.id = id;
            this.slot = slot;
            this.connection = connection;
            this.attempt = attempt;
        }

        @Override
        public Connection connection() {
            return attempt.connection();
        }

        @Override
        public void commit() throws SQLException {
            try {
                try {
                    attempt.ran();
                } catch (SQLException | RuntimeException e) {
                    db.rollback(connection);
                    throw e;
                }
                db.commit(connection);
            } finally {
                end();
            }
            GlobalAttempts.observed(attempt, id);
            stats.local.increment();
        }

        @Override
        public void rollback() {
            try {
                db.rollback(connection);
            } finally {
                end();
            }
        }

        private void end() {
            try {
                connection.close();
            } catch (SQLException e) {
                // a connection that cannot close is the pool's to throw out
            } finally {
                slot.close();
            }
        }
    }

    private RequestObserver.Observed observed(Request request, RequestObserver watcher) {
        if (watcher == RequestObserver.NONE) return null; // watches nothing: spare the local path the allocation
        return new RequestObserver.Observed(self, request.transaction(), request.parameters(),
                partitionOf.apply(request), false, db);
    }
}
