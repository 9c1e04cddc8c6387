package dev.gyro.runtime;

import dev.gyro.app.BadRequestException;
import dev.gyro.app.TransactionCatalog;
import dev.gyro.wire.Reply;
import dev.gyro.wire.Request;
import dev.gyro.wire.RoutingTable;
import dev.gyro.protocol.Value;
import dev.gyro.runtime.db.DeadlinePassedException;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

/**
 * The way of a request into the instance (paper Figure 1, steps 1-2): decide by table lookup which instance owns it
 * and whether it is local or global; forward what another instance owns, queue a global request for the token, and
 * run a local one on a request thread once the session guarantee allows it. Handing a request on never blocks: the
 * request threads are a bounded pool, and a request that finds it full is refused at once as OVERLOADED.
 */
final class RequestRouter {

    private final int self;
    private final RoutingTable routing;
    private final TransactionCatalog catalog;
    private final LocalExecutor local;
    private final GlobalExecutor globals;
    private final PeerLinks peers;
    private final SessionGate session;
    private final ExecutorService requestThreads;
    private final Replies replies;
    private final InstanceStats stats;
    private final InstanceMetrics metrics;
    /** The reply recorded for a request id, or null (docs/decisions/24-ring-on-groups.md). */
    private final RecordedReplies recorded;
    /** The buckets owned here, closed while a move takes them away (docs/decisions/43-bucket-moves.md). */
    private final Buckets buckets;
    private final BucketLoad load;
    /** Requests with an id running here now, with everyone waiting for their reply (a client's retry included). */
    private final java.util.concurrent.ConcurrentHashMap<String, List<Waiting>> running =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** One who waits for the reply of a request with an id, until its own deadline. */
    private record Waiting(Consumer<Reply> reply, long deadline) {}

    /** Where the replies of requests with ids are found. */
    interface RecordedReplies {
        /** The reply recorded for {@code id}, or null; read by {@code deadline} (DeadlinePassedException). */
        Reply find(String id, long deadline) throws Exception;
    }

    RequestRouter(int self, RoutingTable routing, TransactionCatalog catalog, LocalExecutor local,
                  GlobalExecutor globals, PeerLinks peers, SessionGate session, ExecutorService requestThreads,
                  Replies replies, InstanceStats stats, InstanceMetrics metrics, RecordedReplies recorded,
                  Buckets buckets) {
        this.recorded = recorded;
        this.buckets = buckets;
        this.load = new BucketLoad(routing.map().buckets());
        this.metrics = metrics;
        this.self = self;
        this.routing = routing;
        this.catalog = catalog;
        this.local = local;
        this.globals = globals;
        this.peers = peers;
        this.session = session;
        this.requestThreads = requestThreads;
        this.replies = replies;
        this.stats = stats;
    }

    /** The local requests of each bucket taken here. */
    BucketLoad load() {
        return load;
    }

    /** A request from a client, or forwarded by a peer. Answers {@code reply} exactly once, later or now. */
    void handle(Request request, Consumer<Reply> out) {
        handle(request, DeadlinePassedException.NONE, out);
    }

    /**
     * As {@link #handle(Request, Consumer)}, for a client that waits for the answer until {@code deadline} (a
     * {@link System#nanoTime()} value, see {@link #answerBy}): a local request is not committed once it has passed
     * (docs/decisions/37-request-ids.md).
     */
    void handle(Request request, long deadline, Consumer<Reply> out) {
        long arrived = System.nanoTime();
        if (request.transaction().equals(BucketMove.TRANSACTION) || dev.gyro.wire.RingRequest.is(request.transaction())) {
            // Gyro's own global requests (decisions 43 and 44): checked where they run, in the token's round
            globals.enqueue(request, new Object[0], arrived, deadline, r -> {
                metrics.request(request.transaction(), true, r.status(), arrived);
                out.accept(r);
            });
            return;
        }

        // Wrong parameters are refused here, at once: such a request must neither wait in the session gate for its
        // gsn nor queue for the token only to be refused then (docs/decisions/10-errors.md). The arguments are
        // converted once, here: the executor runs the request's first attempt on them.
        Object[] converted;
        try {
            converted = catalog.get(request.transaction()).arguments(null, request.parameters());
        } catch (BadRequestException e) {
            Reply bad = replies.error(Reply.Status.BAD_REQUEST, e.getMessage());
            metrics.request(request.transaction(), false, bad.status(), arrived);
            out.accept(bad);
            return;
        }
        RoutingTable.Decision d = routing.decide(request.transaction(), request.parameters(), self);
        if (d == null) {
            Reply r = replies.error(Reply.Status.BAD_REQUEST, "cannot route " + request);
            metrics.request(request.transaction(), false, r.status(), arrived);
            out.accept(r);
            return;
        }
        if (d.owner() != self) {
            if (request.forwarded() && !session.reached(request.afterGsn())) {
                // Forwarded here by a newer map, after a bucket move (decision 43): routed again once this instance
                // has applied the gsn the forwarder's map came with.
                session.await(request.afterGsn(), () -> handle(request, deadline, out), () -> out.accept(
                        replies.error(Reply.Status.UNAVAILABLE, "instance " + self + " has not applied gsn "
                                + request.afterGsn() + " (at " + session.applied() + "), which the instance that"
                                + " forwarded " + request + " had: it waited " + SessionGate.MAX_WAIT.toSeconds()
                                + " s at most, or is shutting down")));
                return;
            }
            forward(request, d, deadline, out); // counted by the owner, which answers it
            return;
        }
        boolean global = d.global();
        // A local request of a bucket owned here enters it (a global one when it runs, GlobalExecutor): a move closes
        // it, and then the request waits, and is routed again by the map the move leaves.
        int bucket = global ? -1 : routing.homeBucket(request.transaction(), request.parameters());
        if (bucket >= 0 && !buckets.enter(bucket, () -> handle(request, deadline, out))) return;
        if (bucket >= 0) load.count(bucket);
        Consumer<Reply> reply = r -> {
            if (bucket >= 0) buckets.leave(bucket);
            metrics.request(request.transaction(), global, r.status(), arrived);
            out.accept(r);
        };
        // A read-only local request changes nothing: run again, it answers what it would have (decision 37).
        if (request.id() != null && (global || !local.readOnly(request.transaction()))) {
            once(request, converted, global, arrived, deadline, reply);
            return;
        }
        dispatch(request, converted, global, arrived, deadline, reply);
    }

    /**
     * When an instance answers a client whose call ends in {@code remainingNanos} from {@code nowNanos}: a tenth of the
     * time earlier, a second at most, so that the answer reaches the client before it gives up
     * (docs/decisions/37-request-ids.md).
     */
    static long answerBy(long nowNanos, long remainingNanos) {
        return nowNanos + remainingNanos - Math.min(remainingNanos / 10, 1_000_000_000L);
    }

    /**
     * A request with a client's id (docs/decisions/24-ring-on-groups.md and docs/decisions/37-request-ids.md): if it ran
     * here before (its reply is recorded), that reply; if it is running here now, the same reply when it comes, unless
     * that run surely changed nothing ({@link Replies#notRun}: its own deadline passed, its database was unavailable),
     * and then it runs again for those who waited; otherwise it runs, once. A local request looks its record up in its
     * own transaction (LocalExecutor); a global one here, before it queues for the token: the lookup reads the
     * database, so it runs on a request thread.
     */
    private void once(Request request, Object[] converted, boolean global, long arrived, long deadline,
                      Consumer<Reply> reply) {
        boolean[] first = new boolean[1];
        running.compute(request.id(), (id, waiting) -> {
            if (waiting == null) {
                first[0] = true;
                waiting = new ArrayList<>();
            }
            waiting.add(new Waiting(reply, deadline));
            return waiting;
        });
        if (!first[0]) return; // answered with the running one
        Consumer<Reply> all = r -> {
            List<Waiting> waiting = running.remove(request.id());
            if (waiting == null) return;
            waiting.get(0).reply().accept(r);
            boolean again = Replies.notRun(r);
            for (Waiting w : waiting.subList(1, waiting.size())) {
                // converted afresh: the run before may have changed the arguments (Arguments)
                if (again) once(request, Arguments.NONE, global, arrived, w.deadline(), w.reply());
                else w.reply().accept(r);
            }
        };
        if (!global) {
            dispatch(request, converted, false, arrived, deadline, all);
            return;
        }
        try {
            requestThreads.execute(() -> {
                Reply before;
                try {
                    before = recorded.find(request.id(), deadline);
                } catch (Exception e) {
                    all.accept(replies.notLookedUp(request, e, local.failures()));
                    return;
                }
                if (before != null) {
                    stats.repeatedRequests.increment();
                    all.accept(before);
                } else {
                    dispatch(request, converted, true, arrived, deadline, all);
                }
            });
        } catch (RejectedExecutionException e) {
            stats.refused.increment();
            all.accept(replies.error(Reply.Status.OVERLOADED, "instance " + self + " is busy: every request "
                    + "thread is taken and its queue of waiting requests is full; retry later"));
        }
    }

    private void dispatch(Request request, Object[] converted, boolean global, long arrived, long deadline,
                          Consumer<Reply> reply) {
        if (global) {
            globals.enqueue(request, converted, arrived, deadline, reply);
        } else {
            session.await(request.afterGsn(), () -> runLocal(request, converted, deadline, reply), () -> reply.accept(
                    replies.error(Reply.Status.UNAVAILABLE, "instance " + self + " has not applied gsn "
                            + request.afterGsn() + " (at " + session.applied() + "): it waited "
                            + SessionGate.MAX_WAIT.toSeconds() + " s at most, or is shutting down")));
        }
    }

    /**
     * Forwards a request another instance owns, with the gsn of the map it was routed by: its owner routes it by a map
     * at least as new. Forwarded once while no bucket has moved (then a second forward means the maps disagree); after
     * a move, again, since each forward goes to a map at least as new as the one before (decision 43).
     */
    private void forward(Request request, RoutingTable.Decision d, long deadline, Consumer<Reply> reply) {
        long mapGsn = buckets.mapGsn();
        if (request.forwarded() && mapGsn == 0) {
            reply.accept(replies.error(Reply.Status.UNAVAILABLE, "request " + request + " was forwarded to "
                    + "instance " + self + " but routes to instance " + d.owner() + ": partition maps disagree"));
        } else {
            stats.forwarded.increment();
            peers.forward(d.owner(), request.after(Math.max(request.afterGsn(), mapGsn)), deadline, reply);
        }
    }

    /**
     * A global request that was queued here but whose bucket moved away before it ran (GlobalExecutor): it goes to the
     * new owner, past the gate that registered its id, answered there.
     */
    void reroute(Request request, long deadline, Consumer<Reply> reply) {
        RoutingTable.Decision d = routing.decide(request.transaction(), request.parameters(), self);
        if (d == null || d.owner() == self) {
            reply.accept(replies.error(Reply.Status.UNAVAILABLE, "not run: " + request + " waited at instance " + self
                    + " while its bucket moved, and the map then gave it no other owner; send it again"));
            return;
        }
        stats.forwarded.increment();
        peers.forward(d.owner(), request.after(Math.max(request.afterGsn(), buckets.mapGsn())), deadline, reply);
    }

    /**
     * Runs a request from inside this instance's process, as the paper deploys Gyro (instrumentation inside the
     * application server, Figure 1): a local request it owns runs on the caller's thread, the lean local path;
     * anything else goes the way of a request from the network. Blocks until the reply.
     */
    Reply call(Request request) {
        RoutingTable.Decision d = routing.decide(request.transaction(), request.parameters(), self);
        int bucket = d == null ? -1 : routing.homeBucket(request.transaction(), request.parameters());
        if (d != null && d.owner() == self && !d.global() && session.reached(request.afterGsn())
                && (bucket < 0 || buckets.tryEnter(bucket))) {
            long arrived = System.nanoTime();
            try {
                Reply r = local.execute(request);
                metrics.request(request.transaction(), false, r.status(), arrived);
                return r;
            } finally {
                if (bucket >= 0) buckets.leave(bucket);
            }
        }
        CompletableFuture<Reply> reply = new CompletableFuture<>();
        handle(request, reply::complete);
        return reply.join();
    }

    /**
     * Runs a global request at this instance, whichever partition it names (a global request may run at any instance,
     * paper Section III): an attached application's global call runs where it arrived
     * (docs/decisions/38-attached-processes.md). Blocks until the reply.
     */
    Reply callHere(Request request) {
        long arrived = System.nanoTime();
        Object[] converted;
        try {
            converted = catalog.get(request.transaction()).arguments(null, request.parameters());
        } catch (BadRequestException e) {
            return replies.error(Reply.Status.BAD_REQUEST, e.getMessage());
        }
        CompletableFuture<Reply> reply = new CompletableFuture<>();
        dispatch(request, converted, true, arrived, DeadlinePassedException.NONE, r -> {
            metrics.request(request.transaction(), true, r.status(), arrived);
            reply.complete(r);
        });
        return reply.join();
    }

    private void runLocal(Request request, Object[] converted, long deadline, Consumer<Reply> reply) {
        try {
            requestThreads.execute(() -> reply.accept(local.execute(request, converted, deadline)));
        } catch (RejectedExecutionException e) {
            stats.refused.increment();
            reply.accept(replies.error(Reply.Status.OVERLOADED, "instance " + self + " is busy: every request "
                    + "thread is taken and its queue of waiting requests is full; retry later"));
        }
    }

    /** The values of the request's partitioning parameters. */
    static List<Value> partitionOf(RoutingTable routing, Request request) {
        RoutingTable.Route route = routing.route(request.transaction());
        if (route == null) return List.of(); // Gyro's own (a bucket move)
        List<Value> out = new ArrayList<>();
        for (int k : route.keys()) out.add(request.parameters().get(k));
        return out;
    }
}
