package dev.gyro.agent;

import dev.gyro.protocol.Value;
import dev.gyro.runtime.GyroInstance;
import dev.gyro.runtime.db.Database;
import dev.gyro.wire.Reply;
import dev.gyro.wire.Request;
import dev.gyro.wire.RoutingTable;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.LongAdder;

/**
 * Gyro attached to an application in its own process (docs/decisions/34-attaching.md): each call of a classified
 * method becomes a request of the instance that owns it, and runs on the application's thread once the request may
 * run. Thread-safe: any number of the application's threads call at once.
 */
public final class Attachment implements AutoCloseable {

    private final List<GyroInstance> instances;
    private final ExecutorService requests = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "gyro-attached-call");
        t.setDaemon(true);
        return t;
    });

    private final ConcurrentHashMap<String, Figures> figures = new ConcurrentHashMap<>();
    private volatile Runnable beforeFirstCall;

    private final boolean localOnItsThread;

    /** @param instances the running instances of the ring, by id */
    public Attachment(List<GyroInstance> instances) {
        this(instances, true);
    }

    /**
     * @param instances        the running instances of the ring, by id
     * @param localOnItsThread whether a local call runs on a connection of its instance's database taken on the
     *                         application's own thread (no other thread involved); false runs it through the instance's
     *                         request path, where what observes requests (the recorder of the dynamic check) sees it
     */
    public Attachment(List<GyroInstance> instances, boolean localOnItsThread) {
        this.instances = List.copyOf(instances);
        this.localOnItsThread = localOnItsThread;
    }

    /** Runs {@code r} once, before the first call begins; every call waits for it. */
    void beforeFirstCall(Runnable r) {
        beforeFirstCall = r;
    }

    private void firstCall() {
        if (beforeFirstCall == null) return;
        synchronized (this) {
            Runnable r = beforeFirstCall;
            if (r == null) return;
            try {
                r.run();
            } finally {
                beforeFirstCall = null;
            }
        }
    }

    /** What became of one transaction's calls: committed as local or as global requests, or not committed. */
    public static final class Figures {
        final LongAdder local = new LongAdder(),
                global = new LongAdder(), notCommitted = new LongAdder();

        public long local() {
            return local.sum();
        }

        public long global() {
            return global.sum();
        }

        /** Rolled back by the application, or refused (a lost race included). */
        public long notCommitted() {
            return notCommitted.sum();
        }
    }

    /** The figures of transaction {@code name} (zeros before its first call). */
    public Figures figures(String name) {
        return figures.computeIfAbsent(name, k -> new Figures());
    }

    /**
     * Begins a call of {@code method} with {@code args}: routes it, and waits until its request may run.
     *
     * @throws SQLException when Gyro refused or failed the request before the call could run (its message says why)
     */
    public Call begin(AttachedMethod method, Object[] args) throws SQLException {
        return begin(method, method.partitionValues(args));
    }

    /** {@link #begin(AttachedMethod, Object[])} with the call's partitioning values read already. */
    Call begin(AttachedMethod method, List<Object> keys) throws SQLException {
        firstCall();
        String id = UUID.randomUUID().toString();
        List<Value> parameters = new ArrayList<>();
        parameters.add(Value.of(id));
        for (Object k : keys) parameters.add(Value.of(String.valueOf(k)));
        Request request = new Request(method.rule().name(), parameters, false, 0);
        RoutingTable routing = instances.get(0).routing();
        RoutingTable.Decision decision = routing.decide(request.transaction(), request.parameters(), 0);
        int owner = decision.owner();
        Figures f = figures(method.rule().name());
        if (!decision.global() && localOnItsThread) {
            // A local request runs at once, with no coordination (paper Section III): its transaction is the call's
            Database db = instances.get(owner).database();
            Connection c = method.rule().readOnly() ? db.readConnection() : db.writeConnection();
            return new Call(method, c, db, owner, f.local, f.notCommitted);
        }
        Handoff h = Handoff.open(id);
        h.begun = System.nanoTime();
        CompletableFuture<Reply> reply = CompletableFuture.supplyAsync(() -> {
            h.started = System.nanoTime();
            Reply r = instances.get(owner).call(request);
            h.replied = System.nanoTime();
            return r;
        }, requests);
        reply.whenComplete((r, t) -> h.go.completeExceptionally(new IllegalStateException(
                r != null ? r.status() + ": " + r.message() : String.valueOf(t)))); // it ended without running
        try {
            Connection connection = h.go.get();
            h.resumed = System.nanoTime();
            return new Call(method, h, connection, reply, decision.global() ? f.global : f.local, f.notCommitted);
        } catch (ExecutionException e) {
            h.close();
            throw new SQLException("gyro: " + method.rule().name() + " did not run: " + e.getCause().getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            h.done.complete(false);
            h.close();
            throw new SQLException("gyro: interrupted while " + method.rule().name() + " waited to run", e);
        }
    }

    /** One call in progress: its connection, and its end (the application's commit or rollback). */
    public static final class Call {
        private final AttachedMethod method;
        private final Handoff handoff;
        private final Connection connection;
        private final CompletableFuture<Reply> reply;
        /** The application's connection that did the call's work commits each statement: the call ends with it. */
        volatile boolean endsWithMethod;

        private final LongAdder committed, notCommitted;
        /** For a local call on the application's thread: its instance's database and the instance; else null. */
        private final Database database;
        private final int instance;

        private Call(AttachedMethod method, Handoff handoff, Connection connection, CompletableFuture<Reply> reply,
                     LongAdder committed, LongAdder notCommitted) {
            this.method = method;
            this.handoff = handoff;
            this.connection = connection;
            this.reply = reply;
            this.committed = committed;
            this.notCommitted = notCommitted;
            this.database = null;
            this.instance = -1;
        }

        private Call(AttachedMethod method, Connection connection, Database database, int instance, LongAdder committed,
                     LongAdder notCommitted) {
            this.method = method;
            this.handoff = null;
            this.connection = connection;
            this.reply = null;
            this.committed = committed;
            this.notCommitted = notCommitted;
            this.database = database;
            this.instance = instance;
        }

        /** A local call on the application's thread commits its own transaction. */
        private Reply commitHere() throws SQLException {
            try {
                database.commit(connection);
                committed.increment();
                return new Reply(Reply.Status.OK, "", List.of(), instance, "local", 0);
            } catch (SQLException e) {
                notCommitted.increment();
                if (database.failures().lostRace(e) && !"40001".equals(e.getSQLState()))
                    throw new SQLTransactionRollbackException("gyro: " + method.rule().name() + " did not commit: "
                            + e.getMessage() + " (SQLSTATE 40001)", "40001", e);
                throw e;
            } finally {
                connection.close();
            }
        }

        /** The connection the call's work runs on: its instance's database, in its request's transaction. */
        public Connection connection() {
            return connection;
        }

        /**
         * The application commits: the request commits (a global one with its gsn, its update shipped to every other
         * instance).
         *
         * @return the reply
         * @throws SQLException when the request did not commit; a lost race is a serialization failure (SQLSTATE
         *                      40001), which the application's own retry loop expects
         */
        public Reply commit() throws SQLException {
            if (database != null) return commitHere();
            handoff.committing = System.nanoTime();
            handoff.done.complete(true);
            Reply r = end();
            (r.ok() ? committed : notCommitted).increment();
            if (r.ok() && method.rule().kind() == dev.gyro.app.Kind.LOCAL)
                CallTiming.record(handoff.begun, handoff.started, handoff.lent, handoff.resumed, handoff.committing,
                        handoff.decided, handoff.replied, System.nanoTime());
            if (!r.ok()) {
                String message = "gyro: " + method.rule().name() + " did not commit: " + r.status() + ": " + r.message();
                if (r.message().contains("40001") || r.message().contains("could not serialize"))
                    throw new SQLTransactionRollbackException(message, "40001");
                throw new SQLException(message);
            }
            return r;
        }

        /** The application rolls back: nothing is written, nothing shipped. */
        public void rollback() throws SQLException {
            notCommitted.increment();
            if (database != null) {
                database.rollback(connection);
                connection.close();
                return;
            }
            handoff.done.complete(false);
            end();
        }

        private Reply end() throws SQLException {
            try {
                return reply.get();
            } catch (ExecutionException e) {
                throw new SQLException("gyro: " + method.rule().name() + " failed: " + e.getCause(), e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SQLException("gyro: interrupted while " + method.rule().name() + " ended", e);
            } finally {
                handoff.close();
            }
        }
    }

    @Override
    public void close() {
        requests.shutdownNow();
    }
}
