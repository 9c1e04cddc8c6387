package dev.gyro.client;

import dev.gyro.wire.Reply;
import dev.gyro.wire.Request;
import dev.gyro.wire.RingStatus;
import dev.gyro.wire.RoutingTable;
import dev.gyro.wire.Transport;
import dev.gyro.wire.Wire;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The client library: sends each request straight to the instance that owns its partition (Step 1 of the
 * paper's Figure 1), using the routing table an instance publishes. Thread-safe; share one per process.
 *
 * <p>Calls made directly on the client carry no session guarantee. A {@link Session} (one per user, not per
 * process) keeps the guarantee of docs/decisions/09-serializability-session.md: after it sees a global request's reply,
 * it asks each of its later requests to wait, wherever it runs, until that instance has applied the same gsn.
 */
public final class GyroClient implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(GyroClient.class);

    private final RoutingTable routing;
    // By instance id; grown when the routing table names instances that joined the ring since.
    private final List<ManagedChannel> channels = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** By instance id: the address each channel was made for (guarded by channels). */
    private final List<String> linked = new ArrayList<>();
    private final AtomicInteger roundRobin = new AtomicInteger();
    private final long deadlineMillis;
    private final int preferred;
    private final Transport transport;
    /**
     * Per instance: a replicated group (docs/decisions/24-ring-on-groups.md), whose requests are sent again with their
     * ids while it has no leader.
     */
    private volatile boolean[] replicated;

    private GyroClient(RoutingTable routing, long deadlineMillis, int preferred, Transport transport) {
        this.routing = routing;
        this.deadlineMillis = deadlineMillis;
        this.preferred = preferred;
        this.transport = transport;
        for (String address : routing.addresses()) {
            channels.add(transport.channel(address));
            linked.add(address);
        }
        this.replicated = new boolean[routing.addresses().size()];
        boolean any = false;
        for (int i = 0; i < replicated.length; i++) {
            replicated[i] = Transport.replicaAddresses(routing.addresses().get(i)).size() > 1;
            any |= replicated[i];
        }
        this.reconnect = any ? Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "gyro-client-reconnect");
            t.setDaemon(true);
            return t;
        }) : null;
        // A group's channel that found no replica listening (mid-failover) would wait out gRPC's reconnect backoff (1 s
        // and growing) after the new leader listens; calls waiting for it (wait-for-ready) should not.
        // One that found none for a second may have its leader on an address this client does not know yet.
        if (reconnect != null) reconnect.scheduleWithFixedDelay(() -> {
            long now = System.nanoTime();
            for (int i = 0; i < replicated.length; i++) {
                if (replicated[i] && channels.get(i).getState(false) == io.grpc.ConnectivityState.TRANSIENT_FAILURE) {
                    channels.get(i).resetConnectBackoff();
                    long since = noReplicaSince.computeIfAbsent(i, k -> now);
                    if (now - since > 1_000_000_000L) groupMayHaveMoved(i);
                } else {
                    noReplicaSince.remove(i);
                }
            }
        }, RECONNECT_MILLIS, RECONNECT_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** By instance: since when a replicated group's channel found none of its replicas listening. */
    private final java.util.Map<Integer, Long> noReplicaSince = new java.util.concurrent.ConcurrentHashMap<>();

    /** How often a replicated group's channel that found no leader tries its replicas again. */
    static final long RECONNECT_MILLIS = 50;
    private final ScheduledExecutorService reconnect;

    /**
     * Connects through any of {@code addresses} (host:port), fetches the routing table, then talks to every
     * instance directly.
     */
    public static GyroClient connect(List<String> addresses) {
        return connect(addresses, 30_000, -1);
    }

    /**
     * Connects through any of {@code addresses} with {@code transport}: for a cluster that runs with mutual TLS (the
     * default of {@code gyro cluster start}), {@code Transport.mutualTls(new TlsFiles(dir), "client")} with the
     * cluster's client certificate.
     */
    public static GyroClient connect(List<String> addresses, Transport transport) {
        return connect(addresses, 30_000, -1, transport);
    }

    /**
     * @param deadlineMillis how long one request may take before it fails as UNAVAILABLE
     * @param preferred      the instance that runs requests without a partitioning parameter (the nearest one), or
     *                       -1 to spread them round-robin
     */
    public static GyroClient connect(List<String> addresses, long deadlineMillis, int preferred) {
        return connect(addresses, deadlineMillis, preferred, Transport.insecure());
    }

    /** As {@link #connect(List, long, int)}, over {@code transport}. */
    public static GyroClient connect(List<String> addresses, long deadlineMillis, int preferred, Transport transport) {
        if (addresses.isEmpty()) throw new IllegalArgumentException("no instance address given");
        List<String> failures = new ArrayList<>();
        for (String address : addresses) {
            ManagedChannel ch = transport.channel(address);
            try {
                byte[] json = ClientCalls.blockingUnaryCall(ch, Wire.DESCRIBE,
                        CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), new byte[0]);
                return new GyroClient(RoutingTable.fromJson(json), deadlineMillis, preferred, transport);
            } catch (StatusRuntimeException e) {
                failures.add(address + ": " + describe(e));
            } finally {
                ch.shutdownNow();
            }
        }
        throw new IllegalStateException("no Gyro instance reachable: " + String.join("; ", failures));
    }

    public RoutingTable routing() {
        return routing;
    }

    /**
     * Moves {@code buckets} to instance {@code to} with their rows (docs/decisions/43-bucket-moves.md): one move request
     * to each present owner of some of them, in turn; then routes by the new map. Returns the replies, one per owner;
     * the first that is not OK ends the moves.
     */
    public List<Reply> moveBuckets(int to, int... buckets) {
        // the owners as the instances know them now: a move is sent to the present owner, which alone can run it
        for (int i = 0; i < channels.size(); i++) refreshRouting(i);
        java.util.Map<Integer, List<Integer>> byOwner = new java.util.TreeMap<>();
        for (int b : buckets) byOwner.computeIfAbsent(routing.map().ownerOfBucket(b), o -> new ArrayList<>()).add(b);
        List<Reply> replies = new ArrayList<>();
        for (java.util.Map.Entry<Integer, List<Integer>> e : byOwner.entrySet()) {
            Reply r = send(e.getKey(), dev.gyro.wire.MoveRequest.of(to,
                    e.getValue().stream().mapToInt(Integer::intValue).toArray()));
            replies.add(r);
            if (r.status() != Reply.Status.OK) break;
            refreshRouting(e.getKey()); // the old owner: it switched when the move committed
        }
        return replies;
    }

    /**
     * Asks instance {@code from} for its routing table and routes by its map from now on if it is newer (after a
     * bucket move). Returns whether it was.
     */
    public boolean refreshRouting(int from) {
        return Boolean.TRUE.equals(refreshed(from, 10_000));
    }

    /** As {@link #refreshRouting(int)} within {@code millis}; null when {@code from} did not answer. */
    private Boolean refreshed(int from, long millis) {
        try {
            byte[] json = ClientCalls.blockingUnaryCall(channels.get(from), Wire.DESCRIBE,
                    CallOptions.DEFAULT.withDeadlineAfter(millis, TimeUnit.MILLISECONDS), new byte[0]);
            RoutingTable newer = RoutingTable.fromJson(json);
            synchronized (channels) { // instances that joined the ring: channels to them first, then routes
                List<String> addresses = newer.addresses();
                if (addresses.size() > channels.size()) {
                    boolean[] r = java.util.Arrays.copyOf(replicated, addresses.size());
                    for (int i = channels.size(); i < addresses.size(); i++) {
                        r[i] = Transport.replicaAddresses(addresses.get(i)).size() > 1;
                        channels.add(transport.channel(addresses.get(i)));
                        linked.add(addresses.get(i));
                    }
                    replicated = r;
                }
                boolean changed = routing.adopt(newer);
                // An instance reached at another address now (a group's member replaced, decision 47): a channel there.
                List<String> now = routing.addresses();
                for (int i = 0; i < linked.size() && i < now.size(); i++) {
                    if (linked.get(i).equals(now.get(i))) continue;
                    ManagedChannel old = channels.get(i);
                    channels.set(i, transport.channel(now.get(i)));
                    linked.set(i, now.get(i));
                    old.shutdown();
                    log.info("instance {} is at {} from now on", i, now.get(i));
                }
                return changed;
            }
        } catch (StatusRuntimeException | IllegalArgumentException e) {
            log.debug("cannot refresh the routing table from instance {}: {}", from, e.toString());
            return null;
        }
    }

    /** When a group that answered UNAVAILABLE last made this client ask another instance for its addresses. */
    private final AtomicLong movedAskedAt = new AtomicLong(Long.MIN_VALUE / 2);

    /**
     * A replicated group answered UNAVAILABLE: it may be electing, or its leader may be a member on an address this
     * client does not know yet (a member on a lost machine replaced, decision 47). At most once a second, another
     * instance is asked for the routing table, whose addresses this client takes if they are newer.
     */
    private void groupMayHaveMoved(int group) {
        long now = System.nanoTime();
        long last = movedAskedAt.get();
        if (now - last < 1_000_000_000L || !movedAskedAt.compareAndSet(last, now)) return;
        for (int i = 1; i <= channels.size(); i++) // the others first, the group itself last
            if (refreshed((group + i) % channels.size(), 1_000) != null) return;
    }

    /** When the map was last refreshed because a request was answered by another instance than its owner by the map. */
    private final AtomicLong refreshedAt = new AtomicLong(Long.MIN_VALUE / 2);
    /** When a request that found its owner unreachable last asked another instance for the map (guarded by refreshedAt). */
    private long lastAsked = Long.MIN_VALUE / 2;

    /**
     * A request sent to its partition's owner by this client's map was run by another instance: the partition moved
     * (decision 43), and {@code by}, its old owner, forwarded it by its newer map. The map is refreshed from {@code by},
     * at most once a second, on a thread of its own.
     */
    private void moved(int by) {
        long now = System.nanoTime();
        long last = refreshedAt.get();
        if (now - last < 1_000_000_000L || !refreshedAt.compareAndSet(last, now)) return;
        Thread t = new Thread(() -> refreshRouting(by), "gyro-client-routing");
        t.setDaemon(true);
        t.start();
    }

    /** Runs {@code transaction} with these parameters and waits for the reply. Never throws for remote errors. */
    public Reply call(String transaction, Object... parameters) {
        return call(Request.of(transaction, parameters));
    }

    /**
     * Runs {@code request} and waits for the reply. The request keeps its id if it has one ({@link Request#withId});
     * otherwise the client gives it one (docs/decisions/37-request-ids.md). To learn the outcome of a request answered
     * "outcome unknown", send it again with the id the answer names, or with the id it was given.
     */
    public Reply call(Request request) {
        int entry = preferred >= 0 ? preferred : nextEntry();
        RoutingTable.Decision d = routing.decide(request.transaction(), request.parameters(), entry);
        int target = d == null ? entry : d.owner();
        return send(target, request);
    }

    /**
     * The next instance in turn for a request without a partitioning parameter, passing over those whose connection
     * failed last (an instance that is down, or left the ring: docs/decisions/44-ring-changes.md) while another is not.
     */
    private int nextEntry() {
        int n = channels.size();
        int first = Math.floorMod(roundRobin.getAndIncrement(), n);
        for (int k = 0; k < n; k++) {
            int i = (first + k) % n;
            if (channels.get(i).getState(false) != io.grpc.ConnectivityState.TRANSIENT_FAILURE) return i;
        }
        return first;
    }

    /** A new session: read-your-writes and monotonic reads across instances for one user's requests. */
    public Session session() {
        return new Session(-1);
    }

    /**
     * A new session whose requests all enter the cluster through instance {@code entry}, which runs those it owns
     * and forwards the others to their owner, instead of going to each request's owner directly: the paper's
     * clients "direct requests to the closest Gyro instance" (Section VII-A), which the WAN emulation reproduces.
     */
    public Session session(int entry) {
        if (entry < 0 || entry >= channels.size())
            throw new IllegalArgumentException("instance " + entry + " is not one of the " + channels.size()
                    + " instances of the cluster");
        return new Session(entry);
    }

    /** One user's sequence of requests. Thread-safe, but meant for one user at a time. */
    public final class Session {
        private final AtomicLong seenGsn = new AtomicLong();
        private final int entry; // -1: each request to its owner

        private Session(int entry) {
            this.entry = entry;
        }

        public Reply call(String transaction, Object... parameters) {
            return call(Request.of(transaction, parameters));
        }

        public Reply call(Request request) {
            long after = seenGsn.get();
            if (after > request.afterGsn())
                request = request.after(after);
            Reply reply = entry < 0 ? GyroClient.this.call(request) : send(entry, request);
            if (reply.gsn() > 0) seenGsn.accumulateAndGet(reply.gsn(), Math::max);
            return reply;
        }

        /** The highest gsn this session has seen. */
        public long seenGsn() {
            return seenGsn.get();
        }

        public GyroClient client() {
            return GyroClient.this;
        }
    }

    /** The status document of one instance (JSON). */
    public String status(int instance) {
        return new String(ClientCalls.blockingUnaryCall(channels.get(instance), Wire.STATUS,
                CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), new byte[0]),
                java.nio.charset.StandardCharsets.UTF_8);
    }

    /**
     * Sends {@code request} to {@code instance}. Every request carries an id, its own or one made here
     * (docs/decisions/37-request-ids.md): an instance records the reply of a request that wrote with its writes, and
     * answers the same id again from that record instead of running it twice, so a client told that the outcome is
     * unknown learns it by sending the request again with the same id ({@code call(request.withId(id))}, the id its
     * reply names). An instance that is a replicated group (docs/decisions/24-ring-on-groups.md) may lose its leader
     * while the request is on its way: the request is then sent again with its id until it is answered otherwise or
     * the deadline passes.
     */
    private Reply send(int instance, Request request) {
        long deadline = System.nanoTime() + deadlineMillis * 1_000_000L;
        Request once = request.id() != null ? request : request.withId(java.util.UUID.randomUUID().toString());
        if (!replicated[instance]) return sendOnce(instance, once, deadline);
        for (int attempt = 1; ; attempt++) {
            Reply r = sendOnce(instance, once, deadline);
            if (r.status() != Reply.Status.UNAVAILABLE || System.nanoTime() >= deadline) return r;
            log.debug("request {} to instance {} answered {} (attempt {}): sending it again with its id", once,
                    instance, r.message(), attempt);
            groupMayHaveMoved(instance);
            try {
                Thread.sleep(Math.min(200, 5L << Math.min(attempt, 6))); // a leader stepping down answers at once
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return r;
            }
        }
    }

    private Reply sendOnce(int instance, Request request, long deadlineNanos) {
        try {
            long left = Math.max(1, (deadlineNanos - System.nanoTime()) / 1_000_000L);
            CallOptions options = CallOptions.DEFAULT.withDeadlineAfter(left, TimeUnit.MILLISECONDS);
            // A replicated group: while it elects a leader none of its replicas listens, so the call waits for one to,
            // within its deadline, instead of failing; it is sent only once connected.
            if (replicated[instance]) options = options.withWaitForReady();
            if (!replicated[instance]) {
                Reply r = whoHoldsTheToken(Reply.decode(ClientCalls.blockingUnaryCall(channels.get(instance),
                        Wire.EXECUTE, options, request.encode())));
                if (r.status() == Reply.Status.OK && r.instance() != instance && r.instance() >= 0
                        && ownedBy(request, instance)) moved(instance); // it forwarded by a newer map
                return r;
            }
            byte[] body = watched(channels.get(instance), options, request.encode());
            if (body != null) return whoHoldsTheToken(Reply.decode(body));
            return Reply.error(Reply.Status.UNAVAILABLE, "the replica that led instance " + instance + " at "
                    + routing.addresses().get(instance) + " stopped answering (its Status too, for " + LIVENESS_MILLIS
                    + " ms): " + request + " is sent again with its id to the group's leader", instance);
        } catch (StatusRuntimeException e) {
            log.debug("request {} to instance {} failed: {}", request, instance, e.getStatus());
            channels.get(instance).resetConnectBackoff(); // a restarted instance is reached again at once
            RoutingTable.Decision d = routing.decide(request.transaction(), request.parameters(), instance);
            if (e.getStatus().getCode() == io.grpc.Status.Code.DEADLINE_EXCEEDED) {
                Reply unknown = outcomeUnknown(instance, d, request);
                if (unknown != null) return unknown;
            }
            boolean mayHaveArrived = e.getStatus().getCode() == io.grpc.Status.Code.DEADLINE_EXCEEDED;
            RoutingTable.Route route = routing.route(request.transaction());
            if (e.getStatus().getCode() != io.grpc.Status.Code.DEADLINE_EXCEEDED && !replicated[instance]
                    && route != null && route.keys().length > 0) {
                // The partition may have moved away from an instance since taken out of the ring, or being taken out
                // while it forwarded the request (docs/decisions/44-ring-changes.md): the map is asked of another
                // instance, and a new owner gets the request with its id, which answers it from its record if the
                // forwarded one committed there (docs/decisions/37-request-ids.md), and runs it otherwise.
                int owner = ownerAfterRefresh(request, instance);
                if (owner >= 0) return sendOnce(owner, request, deadlineNanos);
            }
            return Reply.error(Reply.Status.UNAVAILABLE, "instance " + instance + " at "
                    + routing.addresses().get(instance) + " is unreachable: " + describe(e)
                    + (replicated[instance] ? " (a replicated group: none of its replicas led it and answered in time)"
                    : "") + (mayHaveArrived ? sendAgain(request) : ""), instance);
        }
    }

    /**
     * The owner of {@code request}'s partition by the map of an instance other than {@code unreachable}, if that map
     * gives it another owner than {@code unreachable}; else -1.
     */
    private int ownerAfterRefresh(Request request, int unreachable) {
        synchronized (refreshedAt) { // one refresh at a time, which the others wait for and then route by
            RoutingTable.Decision now = routing.decide(request.transaction(), request.parameters(), unreachable);
            long at = System.nanoTime();
            // asked again only while the map names the unreachable instance, and a tenth of a second apart at most,
            // so that an instance that is down costs its clients no storm of questions
            if (now != null && now.owner() == unreachable && at - lastAsked >= 100_000_000L) {
                lastAsked = at;
                for (int i = 0; i < channels.size(); i++)
                    if (i != unreachable && refreshRouting(i)) break;
            }
        }
        RoutingTable.Decision d = routing.decide(request.transaction(), request.parameters(), unreachable);
        return d != null && d.owner() != unreachable ? d.owner() : -1;
    }

    /** Whether this client's map routes {@code request} to {@code instance} by its partition. */
    private boolean ownedBy(Request request, int instance) {
        RoutingTable.Route route = routing.route(request.transaction());
        if (route == null || route.keys().length == 0) return false;
        RoutingTable.Decision d = routing.decide(request.transaction(), request.parameters(), instance);
        return d != null && d.owner() == instance;
    }

    /**
     * A global request its instance withdrew at the client's deadline (it waited for the token, and never runs): the
     * answer says who holds the token, and whether that instance answers (docs/decisions/18-watching.md).
     */
    private Reply whoHoldsTheToken(Reply r) {
        if (r.status() != Reply.Status.UNAVAILABLE || r.message() == null || !r.message().contains(Reply.WITHDRAWN))
            return r;
        List<RingStatus.Entry> ring = askRing();
        int holder = RingStatus.tokenHolder(ring);
        String who = holder < 0 ? "; no instance that answered holds the token"
                : "; the token is held by instance " + holder + (holder < ring.size() ? " at " + ring.get(holder)
                        .address() + (ring.get(holder).up() ? "" : " (unreachable: " + ring.get(holder).error() + ")")
                        : ", which joined the ring after this client last learned its members");
        return Reply.error(r.status(), r.message() + who, r.instance());
    }

    /** How long a call to a replicated group goes unanswered before the client asks whether its leader answers. */
    static final long LIVENESS_MILLIS = 1_000;

    /**
     * A call to a replicated group (docs/decisions/39-frozen-replica.md): while it goes unanswered, the client asks the
     * group's Status over the same channel every {@link #LIVENESS_MILLIS}; a replica that leaves that unanswered too
     * for as long has stopped (frozen with its connections open, or cut off): the call is given up and the channel
     * drops its connection, so that the next call finds the group's leader. A leader that answers its Status is
     * waited for (a global request waits for the token). Null when the call was given up.
     */
    static byte[] watched(ManagedChannel channel, CallOptions options, byte[] body) {
        com.google.common.util.concurrent.ListenableFuture<byte[]> call =
                ClientCalls.futureUnaryCall(channel.newCall(Wire.EXECUTE, options), body);
        try {
            while (true) {
                try {
                    return call.get(LIVENESS_MILLIS, TimeUnit.MILLISECONDS);
                } catch (java.util.concurrent.TimeoutException unanswered) {
                    if (answers(channel)) continue;
                    call.cancel(true);
                    channel.enterIdle();
                    return null;
                }
            }
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof StatusRuntimeException s) throw s;
            throw io.grpc.Status.fromThrowable(e.getCause()).asRuntimeException();
        } catch (InterruptedException e) {
            call.cancel(true);
            Thread.currentThread().interrupt();
            throw io.grpc.Status.CANCELLED.withDescription("interrupted").asRuntimeException();
        }
    }

    /** False when the replica the channel talks to leaves its Status unanswered for {@link #LIVENESS_MILLIS}. */
    private static boolean answers(ManagedChannel channel) {
        try {
            ClientCalls.blockingUnaryCall(channel, Wire.STATUS,
                    CallOptions.DEFAULT.withDeadlineAfter(LIVENESS_MILLIS, TimeUnit.MILLISECONDS), new byte[0]);
            return true;
        } catch (StatusRuntimeException e) {
            // refused or closed: the call in flight fails by itself, and is sent again
            return e.getStatus().getCode() != io.grpc.Status.Code.DEADLINE_EXCEEDED;
        }
    }

    /**
     * A request that ran out of time at a live instance: the instances say why, so the client learns what is known
     * rather than that a live instance is "unreachable" (docs/decisions/18-watching.md and
     * docs/decisions/37-request-ids.md): a global request is queued, behind whom; the owner's database is unavailable;
     * or the owner is up and did not answer. Null if the instance it was sent to, or its owner, does not answer (then
     * it is unreachable indeed).
     */
    private Reply outcomeUnknown(int instance, RoutingTable.Decision d, Request request) {
        int owner = d == null ? instance : d.owner();
        List<RingStatus.Entry> ring = askRing();
        if (instance >= ring.size() || owner >= ring.size() || !ring.get(instance).up() || !ring.get(owner).up())
            return null;
        RingStatus.Entry at = ring.get(owner);
        if (at.status().path("databaseDown").asBoolean())
            return Reply.error(Reply.Status.UNAVAILABLE, databaseDown(request, owner, at.address(),
                    at.status().path("database").asText(), deadlineMillis), owner);
        if (d == null || !d.global())
            return Reply.error(Reply.Status.UNAVAILABLE, "outcome unknown: instance " + owner + " (" + at.address()
                    + ") is up but did not answer " + request + " within " + deadlineMillis + " ms, and it may have"
                    + " committed" + sendAgain(request), owner);
        int holder = RingStatus.tokenHolder(ring);
        boolean known = holder >= 0 && holder < ring.size();
        return Reply.error(Reply.Status.UNAVAILABLE, outcomeUnknown(request, owner, holder,
                known ? ring.get(holder).address() : null,
                !known || ring.get(holder).up() ? null : ring.get(holder).error(), deadlineMillis), owner);
    }

    /**
     * Every instance's status, by id, as far as this client knows the ring: the channels and addresses taken together
     * (an instance that joined is given a channel before the routing table names it).
     */
    private List<RingStatus.Entry> askRing() {
        List<String> addresses = routing.addresses();
        List<ManagedChannel> known = new ArrayList<>(channels);
        int n = Math.min(addresses.size(), known.size());
        return RingStatus.ask(known.subList(0, n), addresses.subList(0, n), java.time.Duration.ofSeconds(2));
    }

    /**
     * What a client that gave up on a request is told when the request's owner, at {@code address}, says its database
     * is unavailable ({@code database}: since when, and why): the instance is up, its database is not.
     */
    static String databaseDown(Request request, int owner, String address, String database, long deadlineMillis) {
        return "outcome unknown: instance " + owner + " (" + address + ") is up but its database is unavailable: "
                + database + "; the client gave up on " + request + " after " + deadlineMillis + " ms, and it may have"
                + " committed" + sendAgain(request);
    }

    /** How the client of a request with an id learns its outcome (docs/decisions/37-request-ids.md). */
    static String sendAgain(Request request) {
        return request.id() == null ? "" : "; send it again with the same id (" + request.id() + ") to learn its"
                + " outcome: it runs at most once";
    }

    /**
     * What a client that gave up on a global request is told: where it waits, and for whom. {@code holder} is the
     * instance the ring says holds the token (-1: none that answered), at {@code holderAddress}; {@code holderDown}
     * why it does not answer, or null.
     */
    static String outcomeUnknown(Request request, int owner, int holder, String holderAddress, String holderDown,
                                 long deadlineMillis) {
        String where = holder < 0 ? " behind a token no instance that answered holds"
                : holder == owner ? ", which holds the token and has not run it yet (its round, or its database, is"
                        + " slow)"
                : " behind the token held by instance " + holder + (holderAddress == null ? "" : " at " + holderAddress)
                        + (holderDown == null ? "" : " (unreachable: " + holderDown + ")");
        return "outcome unknown: " + request + " is queued at instance " + owner + where + "; the client gave up after "
                + deadlineMillis + " ms, and the request may still run" + (holder == owner ? "" : " when the token comes")
                + sendAgain(request);
    }

    /** The status code and the root cause in a few words, without a stack trace. */
    static String describe(StatusRuntimeException e) {
        Throwable root = e;
        while (root.getCause() != null) root = root.getCause();
        String cause = root == e ? e.getStatus().getDescription() : root.getMessage();
        return e.getStatus().getCode() + (cause == null ? "" : " (" + cause + ")");
    }


    @Override
    public void close() {
        if (reconnect != null) reconnect.shutdownNow();
        for (ManagedChannel ch : channels) ch.shutdownNow();
        for (ManagedChannel ch : channels) {
            try {
                ch.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
