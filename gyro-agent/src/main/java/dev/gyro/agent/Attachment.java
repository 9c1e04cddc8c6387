package dev.gyro.agent;

import dev.gyro.protocol.Value;
import dev.gyro.runtime.GyroInstance;
import dev.gyro.wire.Reply;
import dev.gyro.wire.Request;
import dev.gyro.wire.RoutingTable;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;
import java.util.ArrayList;
import java.util.List;
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
    /** Names each call to its request ({@link Handoff}, whose calls in progress are the process's). */
    private static final java.util.concurrent.atomic.AtomicLong CALLS = new java.util.concurrent.atomic.AtomicLong();
    private volatile Runnable beforeFirstCall;
    /**
     * Where this process is one of several, each beside its instance (docs/decisions/38-attached-processes.md): its
     * ring position, and how a call another instance owns runs there; null when this process hosts every instance.
     */
    private final Processes processes;

    /** @param instances the running instances of the ring, by id */
    public Attachment(List<GyroInstance> instances) {
        this.instances = List.copyOf(instances);
        this.processes = null;
    }

    /** This process hosts one instance of a ring, {@code self}; the others are other processes' ({@link Processes}). */
    Attachment(GyroInstance self, Processes processes) {
        this.instances = java.util.Collections.singletonList(self);
        this.processes = processes;
    }

    /** The running instance at ring position {@code id}: one of this process's. */
    private GyroInstance at(int id) {
        return processes == null ? instances.get(id) : instances.get(0);
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
                global = new LongAdder(), notCommitted = new LongAdder(), forwarded = new LongAdder();

        public long local() {
            return local.sum();
        }

        public long global() {
            return global.sum();
        }

        /** Of the local ones, those that ran at another process's instance (docs/decisions/38-attached-processes.md). */
        public long forwarded() {
            return forwarded.sum();
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
        return begin(method, method.partitionValues(args), args);
    }

    /** The request of call {@code id} of {@code method} with partitioning values {@code keys}. */
    static Request request(AttachedMethod method, String id, List<Object> keys) {
        List<Value> parameters = new ArrayList<>();
        parameters.add(Value.of(id));
        for (Object k : keys) parameters.add(Value.of(String.valueOf(k)));
        return new Request(method.rule().name(), parameters, false, 0);
    }

    /**
     * {@link #begin(AttachedMethod, Object[])} with the call's partitioning values read already; {@code args} are the
     * call's arguments, which a call another process's instance owns takes there.
     */
    Call begin(AttachedMethod method, List<Object> keys, Object[] args) throws SQLException {
        firstCall();
        if (processes != null && processes.refusal() != null)
            throw new SQLException("gyro: " + method.rule().name() + " is refused: " + processes.refusal());
        String id = Long.toString(CALLS.incrementAndGet());
        Request request = request(method, id, keys);
        RoutingTable routing = instances.get(0).routing();
        int entry = processes == null ? 0 : processes.position();
        RoutingTable.Decision decision = routing.decide(request.transaction(), request.parameters(), entry);
        int owner = decision.owner();
        Figures f = figures(method.rule().name());
        if (!decision.global() && processes != null && owner != entry) // it runs at its owner, another process
            return new Call(method, processes.forward(owner, method, id, keys, args), f.local, f.notCommitted,
                    f.forwarded);
        if (!decision.global()) {
            // A local request runs at once, with no coordination (paper Section III): on the application's own thread
            return openHere(method, request, owner, f);
        }
        Handoff h = Handoff.open(id);
        // Where the instances are other processes', a global call runs where it arrived: its update rides the belt
        CompletableFuture<Reply> reply = CompletableFuture.supplyAsync(() -> processes == null
                ? instances.get(owner).call(request) : at(entry).callHere(request), requests);
        reply.whenComplete((r, t) -> h.go.completeExceptionally(new IllegalStateException(
                r != null ? r.status() + ": " + r.message() : String.valueOf(t)))); // it ended without running
        try {
            return new Call(method, h, h.go.get(), reply, f.global, f.notCommitted);
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

    /** A local request of instance {@code owner} (one of this process's), on the calling thread. */
    Call openHere(AttachedMethod method, Request request, int owner, Figures f) throws SQLException {
        long begun = System.nanoTime();
        GyroInstance at = at(owner);
        GyroInstance.OpenLocal open = at.openLocal(request);
        return new Call(method, open, at, begun, System.nanoTime(), f.local, f.notCommitted);
    }

    /** One call in progress: its connection, and its end (the application's commit or rollback). */
    public static final class Call {
        private final AttachedMethod method;
        private final Handoff handoff;
        private final Connection connection;
        private final CompletableFuture<Reply> reply;
        /** The application's connection that did the call's work commits each statement: the call ends with it. */
        volatile boolean endsWithMethod;
        /** The call's method returned; its transaction goes on until the application commits or rolls back. */
        volatile boolean methodReturned;
        /** The application asked for the call's connection: it did (or may do) its work in the call's transaction. */
        volatile boolean used;

        private final LongAdder committed, notCommitted;
        /** For a call that runs at another process's instance: there; else null. */
        private final Processes.Forwarded remote;
        private final LongAdder forwarded;
        /** For a local call, run on the application's thread: its request and instance; else null. */
        private final GyroInstance.OpenLocal local;
        private final GyroInstance instance;
        /** A local call's stamps ({@link CallTiming}): it began, its request was open. */
        private final long begun, opened;

        private Call(AttachedMethod method, Handoff handoff, Connection connection, CompletableFuture<Reply> reply,
                     LongAdder committed, LongAdder notCommitted) {
            this.method = method;
            this.handoff = handoff;
            this.connection = connection;
            this.reply = reply;
            this.committed = committed;
            this.notCommitted = notCommitted;
            this.local = null;
            this.instance = null;
            this.begun = this.opened = 0;
            this.remote = null;
            this.forwarded = null;
        }

        private Call(AttachedMethod method, Processes.Forwarded remote, LongAdder committed, LongAdder notCommitted,
                     LongAdder forwarded) {
            this.method = method;
            this.handoff = null;
            this.connection = null;
            this.reply = null;
            this.committed = committed;
            this.notCommitted = notCommitted;
            this.local = null;
            this.instance = null;
            this.begun = this.opened = 0;
            this.remote = remote;
            this.forwarded = forwarded;
        }

        /** For a call that ran at another process's instance: what it answered there; else null. */
        Processes.Forwarded remote() {
            return remote;
        }

        private Call(AttachedMethod method, GyroInstance.OpenLocal local, GyroInstance instance, long begun,
                     long opened, LongAdder committed, LongAdder notCommitted) {
            this.method = method;
            this.handoff = null;
            this.connection = local.connection();
            this.reply = null;
            this.committed = committed;
            this.notCommitted = notCommitted;
            this.local = local;
            this.instance = instance;
            this.begun = begun;
            this.opened = opened;
            this.remote = null;
            this.forwarded = null;
        }

        /** The classified method's transaction name. */
        String name() {
            return method.rule().name();
        }

        /** A local call commits its own request's transaction, on the application's thread. */
        private Reply commitHere() throws SQLException {
            long committing = System.nanoTime();
            try {
                local.commit();
                committed.increment();
                CallTiming.record(begun, opened, committing, System.nanoTime());
                return new Reply(Reply.Status.OK, "", List.of(), instance.id(), "local", 0);
            } catch (SQLException e) {
                notCommitted.increment();
                if (instance.database().failures().lostRace(e) && !"40001".equals(e.getSQLState()))
                    throw new SQLTransactionRollbackException("gyro: " + method.rule().name() + " did not commit: "
                            + e.getMessage() + " (SQLSTATE 40001)", "40001", e);
                throw e;
            }
        }

        /** The connection the call's work runs on: its instance's database, in its request's transaction. */
        public Connection connection() throws SQLException {
            used = true;
            if (remote != null)
                throw new SQLException("gyro: " + method.rule().name() + " ran at instance " + remote.owner() + ", which"
                        + " owns its partition; its transaction is there until the application commits or rolls back,"
                        + " and this statement cannot join it (docs/attach.md, \"Several processes\")", "0A000");
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
            if (local != null) return commitHere();
            if (remote != null) {
                try {
                    remote.end(true);
                } catch (SQLException e) {
                    notCommitted.increment();
                    throw e;
                }
                committed.increment();
                forwarded.increment();
                return new Reply(Reply.Status.OK, "", List.of(), remote.owner(), "local", 0);
            }
            handoff.done.complete(true);
            Reply r = end();
            (r.ok() ? committed : notCommitted).increment();
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
            if (local != null) {
                local.rollback();
                return;
            }
            if (remote != null) {
                remote.end(false);
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
