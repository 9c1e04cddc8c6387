package dev.gyro.runtime;

import dev.gyro.driver.BeltActions;
import dev.gyro.wire.Reply;
import dev.gyro.wire.Request;
import dev.gyro.runtime.db.DeadlinePassedException;
import dev.gyro.wire.Transport;
import dev.gyro.wire.Wire;
import dev.gyro.protocol.Codec;
import dev.gyro.protocol.MalformedMessageException;
import dev.gyro.protocol.Message;
import dev.gyro.runtime.hook.LinkDelay;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptors;
import io.grpc.Metadata;
import io.grpc.stub.MetadataUtils;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Channels from this instance to the others of its ring, over real sockets. Sending a belt message is
 * fire-and-forget: the Conveyor Belt tolerates loss and resends what matters, so a failed send is only logged, and
 * the channel's reconnect backoff is reset so a restarted peer is reached again at the next resend. Every message to a
 * peer, and every reply from one, passes through the instance's {@link LinkDelay}.
 */
final class PeerLinks implements BeltActions.Peers, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PeerLinks.class);

    /** How long a belt message may take to be delivered before its send counts as failed (the belt resends). */
    static final Duration DELIVER_DEADLINE = Duration.ofSeconds(10);
    /** How long the owner of a forwarded request may take to answer it. */
    static final Duration FORWARD_DEADLINE = Duration.ofSeconds(60);
    /**
     * How long a belt message to a replicated group may go unacknowledged before the link asks the replica it talks to
     * for its Status, and how long that replica has to answer (docs/decisions/40-peers-abandon-a-frozen-leader.md).
     */
    static final Duration LIVENESS = Duration.ofSeconds(1);
    /** How often {@link #check()} should be called: a small part of {@link #LIVENESS}. */
    static final Duration CHECK_EVERY = Duration.ofMillis(200);

    private final int self;
    // By instance id; grown, never shrunk, when an instance joins the ring (docs/decisions/44-ring-changes.md).
    private volatile List<String> addresses;
    private volatile Channel[] channels;
    private volatile ManagedChannel[] raw;
    private volatile Link[] links;
    /** Per peer: a replicated group (docs/decisions/24-ring-on-groups.md), whose leader may change under a channel. */
    private volatile boolean[] replicated;
    private final LinkDelay delay;
    private final RingWatch watch;

    private final Transport transport;
    private final Metadata identity;

    private record Encoded(Message message, byte[] body) {}

    private volatile Encoded lastEncoded; // the last message sent and its bytes (encoded())

    PeerLinks(int self, List<String> addresses, LinkDelay delay, Transport transport, Metadata identity,
              RingWatch watch) {
        this.self = self;
        this.watch = watch;
        this.transport = transport;
        this.identity = identity;
        this.addresses = List.copyOf(addresses);
        this.delay = delay;
        this.channels = new Channel[addresses.size()];
        this.raw = new ManagedChannel[addresses.size()];
        this.links = new Link[addresses.size()];
        this.replicated = new boolean[addresses.size()];
        for (int i = 0; i < addresses.size(); i++) if (i != self) open(i);
    }

    /** Opens the channel and the link to instance {@code i}. */
    private void open(int i) {
        replicated[i] = Transport.replicaAddresses(addresses.get(i)).size() > 1;
        raw[i] = transport.channel(addresses.get(i));
        // every message says which cluster, ring and instance it is from (PeerCheck)
        channels[i] = ClientInterceptors.intercept(raw[i], MetadataUtils.newAttachHeadersInterceptor(identity));
        links[i] = new Link(i);
    }

    /** Instance {@code id} joined the ring at {@code address} (docs/decisions/44-ring-changes.md): linked from now on. */
    synchronized void join(int id, String address) {
        if (id < addresses.size() && (id == self || raw[id] != null)) return;
        int n = Math.max(addresses.size(), id + 1);
        List<String> more = new java.util.ArrayList<>(addresses);
        while (more.size() < n) more.add(null);
        more.set(id, address);
        Channel[] c = java.util.Arrays.copyOf(channels, n);
        ManagedChannel[] r = java.util.Arrays.copyOf(raw, n);
        Link[] l = java.util.Arrays.copyOf(links, n);
        boolean[] rep = java.util.Arrays.copyOf(replicated, n);
        // a sender sees no link to id until open made it, and then a whole one
        addresses = List.copyOf(more.stream().map(a -> a == null ? "" : a).toList());
        replicated = rep;
        raw = r;
        channels = c;
        links = l;
        open(id);
        log.info("instance {}: instance {} joined the ring at {}", self, id, address);
    }

    /**
     * Instance {@code id} is reached at {@code address} from now on (docs/decisions/47-new-member.md): its link is
     * opened again there; what was under way on the old one fails, and the belt sends it again.
     */
    synchronized void move(int id, String address) {
        if (id == self || id >= addresses.size() || addresses.get(id).equals(address)) return;
        List<String> moved = new java.util.ArrayList<>(addresses);
        moved.set(id, address);
        ManagedChannel old = raw[id];
        Channel[] c = channels.clone();
        ManagedChannel[] r = raw.clone();
        Link[] l = links.clone();
        boolean[] rep = replicated.clone();
        addresses = List.copyOf(moved);
        replicated = rep;
        raw = r;
        channels = c;
        links = l;
        open(id);
        if (old != null) old.shutdownNow();
        log.info("instance {}: instance {} is at {} from now on", self, id, address);
    }

    /** A refusal by a peer (another cluster, another ring, a certificate it does not accept) is logged loudly, once per reason. */
    private final java.util.Set<String> refusals = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private void failed(int to, String what, Throwable t) {
        Status st = Status.fromThrowable(t);
        if (st.getCode() == Status.Code.FAILED_PRECONDITION || st.getCode() == Status.Code.PERMISSION_DENIED) {
            if (refusals.add(st.getDescription()))
                log.error("instance {}: instance {} at {} refused {}: {}", self, to, addresses.get(to), what,
                        st.getDescription());
        } else {
            log.debug("instance {}: {} to instance {} not delivered: {}", self, what, to, t.toString());
            // never silent: a peer that stays unreachable is reported by the watch (docs/decisions/18-watching.md)
            watch.unreachable(to, st.getCode() + (st.getDescription() == null ? "" : " (" + st.getDescription() + ")"));
        }
        raw[to].resetConnectBackoff();
    }


    @Override
    public void send(int to, Message message) {
        Link[] l = links;
        if (to < 0 || to >= l.length || l[to] == null) { // an instance this one has not heard joining yet
            log.debug("instance {}: no link to instance {} for {}", self, to, message.getClass().getSimpleName());
            return;
        }
        byte[] body = encoded(message); // encoded now: the message as it was when sent
        delay.send(to, () -> l[to].transmit(body));
    }

    /**
     * The message's bytes. The belt sends one message object to every peer it broadcasts to (an update sent ahead, a
     * Want), so the last one's bytes serve the next send of the same object.
     */
    private byte[] encoded(Message message) {
        Encoded last = lastEncoded;
        if (last != null && last.message() == message) return last.body();
        byte[] body = Codec.encodeMessage(message);
        lastEncoded = new Encoded(message, body);
        return body;
    }

    /**
     * Gives up on streams with a message unacknowledged for longer than {@link #DELIVER_DEADLINE}: the peer is
     * reported unreachable, as a message that missed its deadline would make it, and the next message opens a new
     * stream. A stream to a replicated group with a message unacknowledged for {@link #LIVENESS} makes the link ask the
     * replica it talks to for its Status over the same channel; one that leaves that unanswered too for as long has
     * stopped (frozen with its connection open, or cut off): the stream is given up at once and the channel drops its
     * connection, so that the belt's next message (the token resent) reaches the group's new leader
     * (docs/decisions/40-peers-abandon-a-frozen-leader.md). Called every {@link #CHECK_EVERY}.
     */
    void check() {
        long now = System.nanoTime();
        for (Link l : links) if (l != null) l.check(now);
    }

    /**
     * The belt's messages to one peer, over one long-lived {@link Wire#LINK} stream: a gRPC call per message would
     * cost a new HTTP/2 stream with its headers and trailers each time, which on a busy ring of 8 was where most of
     * an instance's CPU went (docs/decisions/28-peer-streams.md). The stream keeps the messages in the order sent; a
     * broken stream (the peer stopped, refused a message, or stopped acknowledging) is dropped with what was in
     * flight, which the belt tolerates as it tolerates any lost message, and the next message opens a new one.
     */
    private final class Link {
        private final int to;
        private Stream open; // guarded by this

        Link(int to) {
            this.to = to;
        }

        synchronized void transmit(byte[] body) {
            if (open == null) open = new Stream(this);
            open.send(body);
        }

        synchronized void ended(Stream s) {
            if (open == s) open = null;
        }

        void check(long now) {
            Stream s;
            synchronized (this) {
                s = open;
                if (s == null) return;
                if (!s.overdue(now)) s = null;
                else open = null;
            }
            if (s != null) s.abandon("no acknowledgement within " + DELIVER_DEADLINE.toSeconds() + " s");
            else if (replicated[to] && (s = current()) != null && s.probeDue(now)) probe(s);
        }

        private synchronized Stream current() {
            return open;
        }

        /**
         * Asks the replica {@code s} talks to for its Status, over the same channel, so over the same connection: an
         * answer (or a refusal: a replica that answers is not frozen, and a closed connection fails the stream by
         * itself) lets the stream wait on; no answer within {@link #LIVENESS} gives it up and drops the connection.
         */
        private void probe(Stream s) {
            var answer = ClientCalls.futureUnaryCall(raw[to].newCall(Wire.STATUS,
                    CallOptions.DEFAULT.withDeadlineAfter(LIVENESS.toMillis(), TimeUnit.MILLISECONDS)), new byte[0]);
            answer.addListener(() -> {
                boolean stopped;
                try {
                    answer.get();
                    stopped = false;
                } catch (java.util.concurrent.ExecutionException e) {
                    stopped = Status.fromThrowable(e.getCause()).getCode() == Status.Code.DEADLINE_EXCEEDED;
                } catch (InterruptedException e) { // cannot happen: the answer is there
                    Thread.currentThread().interrupt();
                    stopped = false;
                }
                if (!stopped) {
                    s.probed(System.nanoTime());
                    return;
                }
                synchronized (this) {
                    if (open != s) return; // given up already
                    open = null;
                    // Before the next stream can be opened (transmit holds this lock): a stream opened before would
                    // run over the frozen connection, which only new calls leave. The next one connects afresh, to
                    // the replica that leads now.
                    raw[to].enterIdle();
                }
                if (s.abandon("no acknowledgement within " + LIVENESS.toMillis() + " ms, and no answer to Status within "
                        + LIVENESS.toMillis() + " ms: its leader stopped answering"))
                    log.info("instance {}: the replica of instance {} ({}) that its belt messages went to stopped"
                            + " answering; the connection to it is dropped, and the next one goes to the group's leader",
                            self, to, addresses.get(to));
            }, com.google.common.util.concurrent.MoreExecutors.directExecutor());
        }
    }

    /** One stream of a {@link Link}, and the send times of its messages not acknowledged yet. */
    private final class Stream implements StreamObserver<byte[]> {
        private final Link link;
        private final ClientCall<byte[], byte[]> call;
        private final java.util.ArrayDeque<Long> unacked = new java.util.ArrayDeque<>(); // guarded by this
        private boolean over; // guarded by this
        // the replica's Status is being asked (Link.probe), and when it last answered (System.nanoTime()); by this
        private boolean probing;
        private long answeredAt = Long.MIN_VALUE;

        Stream(Link link) {
            this.link = link;
            this.call = channels[link.to].newCall(Wire.LINK, CallOptions.DEFAULT);
            ClientCalls.asyncBidiStreamingCall(call, this);
        }

        synchronized void send(byte[] body) {
            if (over) return;
            unacked.addLast(System.nanoTime());
            call.sendMessage(body);
        }

        synchronized boolean overdue(long now) {
            Long oldest = unacked.peekFirst();
            return oldest != null && now - oldest > DELIVER_DEADLINE.toNanos();
        }

        /**
         * True when the replica should be asked whether it answers: a message is unacknowledged for {@link #LIVENESS}
         * and no question is under way or was answered within the last {@link #LIVENESS}. Marks one under way.
         */
        synchronized boolean probeDue(long now) {
            Long oldest = unacked.peekFirst();
            long liveness = LIVENESS.toNanos();
            if (over || probing || oldest == null || now - oldest < liveness
                    || answeredAt != Long.MIN_VALUE && now - answeredAt < liveness) return false;
            probing = true;
            return true;
        }

        synchronized void probed(long now) {
            probing = false;
            answeredAt = now;
        }

        /**
         * The peer acknowledged nothing in time ({@code why}): it counts as unreachable, the stream is given up. False
         * when the stream was over already.
         */
        boolean abandon(String why) {
            synchronized (this) {
                if (over) return false;
                over = true;
                call.cancel(why, null);
            }
            failed(link.to, "belt messages", Status.DEADLINE_EXCEEDED.withDescription(why).asRuntimeException());
            return true;
        }

        @Override
        public void onNext(byte[] ack) {
            synchronized (this) {
                unacked.pollFirst();
            }
            watch.reached(link.to);
        }

        @Override
        public void onError(Throwable t) {
            synchronized (this) {
                if (over) return; // abandoned: already reported
                over = true;
            }
            link.ended(this);
            failed(link.to, "belt messages", t);
        }

        @Override
        public void onCompleted() {
            synchronized (this) {
                over = true;
            }
            link.ended(this);
        }
    }

    /**
     * Asks every other instance where the token stands ({@link Wire#POSITION}) and waits up to {@code deadline} for
     * the answers; an instance that does not answer in time (stopped, starting too) is left out. An answer shows the
     * instance reachable; no answer is not told to the {@link RingWatch}, which watches the belt's messages only: the
     * question is asked once, while the ring's instances start one after another, and nothing asks it again, so an
     * instance that was still starting would stay "unreachable" on an idle ring, whose parked token sends it nothing
     * (docs/decisions/18-watching.md). A peer that is really gone is reported by the belt's own sends.
     */
    java.util.Map<Integer, RingAgreement.Position> positions(Duration deadline) {
        // Channels of their own: a peer that is not up yet would leave a belt channel backing off from its failed
        // connection, and the first requests forwarded over it would fail although the peer is up by then.
        java.util.Map<Integer, ManagedChannel> once = new java.util.TreeMap<>();
        java.util.Map<Integer, com.google.common.util.concurrent.ListenableFuture<byte[]>> asked = new java.util.TreeMap<>();
        for (int i = 0; i < channels.length; i++)
            if (channels[i] != null) {
                once.put(i, transport.channel(addresses.get(i)));
                asked.put(i, ClientCalls.futureUnaryCall(ClientInterceptors.intercept(once.get(i),
                        MetadataUtils.newAttachHeadersInterceptor(identity)).newCall(Wire.POSITION,
                        CallOptions.DEFAULT.withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS)), new byte[0]));
            }
        java.util.Map<Integer, RingAgreement.Position> answers = new java.util.TreeMap<>();
        asked.forEach((i, answer) -> {
            try {
                answers.put(i, RingAgreement.Position.decode(answer.get()));
                watch.reached(i);
            } catch (java.util.concurrent.ExecutionException e) {
                Status st = Status.fromThrowable(e.getCause() == null ? e : e.getCause());
                if (st.getCode() == Status.Code.FAILED_PRECONDITION || st.getCode() == Status.Code.PERMISSION_DENIED)
                    failed(i, "the question where the token stands", e.getCause()); // a refusal: logged loudly
                else
                    log.debug("instance {}: instance {} did not say where the token stands: {}", self, i, st);
            } catch (MalformedMessageException e) {
                log.warn("instance {}: instance {} answered where the token stands with a malformed position: {}",
                        self, i, e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        once.values().forEach(ManagedChannel::shutdownNow);
        return answers;
    }

    /**
     * A request this instance does not own goes to its owner; the owner's reply comes back to {@code out}. The owner is
     * given until {@code deadline} (a {@link System#nanoTime()} value, or DeadlinePassedException.NONE), the time the
     * client waits for this instance's answer, and {@link #FORWARD_DEADLINE} at most (docs/decisions/37-request-ids.md).
     */
    void forward(int owner, Request request, long deadline, Consumer<Reply> out) {
        byte[] body = request.asForwarded().encode();
        long left = DeadlinePassedException.millisLeft(deadline);
        long millis = left < 0 ? FORWARD_DEADLINE.toMillis() : Math.max(1, Math.min(left, FORWARD_DEADLINE.toMillis()));
        delay.send(owner, () -> {
            var call = channels[owner].newCall(Wire.EXECUTE,
                    CallOptions.DEFAULT.withDeadlineAfter(millis, TimeUnit.MILLISECONDS));
            ClientCalls.asyncUnaryCall(call, body, new StreamObserver<>() {
                @Override
                public void onNext(byte[] value) {
                    delay.receive(owner, () -> {
                        try {
                            out.accept(Reply.decode(value));
                        } catch (MalformedMessageException e) {
                            out.accept(Reply.error(Reply.Status.FAILED, "instance " + owner
                                    + " sent a malformed reply: " + e.getMessage(), self));
                        }
                    });
                }

                @Override
                public void onError(Throwable t) {
                    raw[owner].resetConnectBackoff();
                    Status status = Status.fromThrowable(t);
                    // An owner that was reached but did not answer in time may still commit the request
                    // (docs/decisions/37-request-ids.md).
                    String text = status.getCode() != Status.Code.DEADLINE_EXCEEDED
                            ? "instance " + owner + " at " + addresses.get(owner) + ", which owns " + request
                                    + ", is unreachable: " + status.getCode()
                            : "outcome unknown: instance " + owner + " at " + addresses.get(owner) + ", which owns "
                                    + request + ", did not answer it in time (" + millis + " ms)"
                                    + (request.id() == null ? ", and may still run it"
                                    : ": send it again with the same id (" + request.id() + ") to learn its outcome");
                    delay.receive(owner, () -> out.accept(Reply.error(Reply.Status.UNAVAILABLE, text, self)));
                }

                @Override
                public void onCompleted() {}
            });
        });
    }

    /**
     * A call to instance {@code to} that its process answers ({@link Wire#CALL}): the future completes with its answer,
     * or fails with the call's status (unreachable, refused, or no answer within {@code millis}).
     */
    java.util.concurrent.CompletableFuture<byte[]> call(int to, byte[] body, long millis) {
        java.util.concurrent.CompletableFuture<byte[]> answer = new java.util.concurrent.CompletableFuture<>();
        if (to == self || to < 0 || to >= channels.length) {
            answer.completeExceptionally(new IllegalArgumentException("instance " + self + " has no link to " + to));
            return answer;
        }
        delay.send(to, () -> ClientCalls.asyncUnaryCall(channels[to].newCall(Wire.CALL,
                CallOptions.DEFAULT.withDeadlineAfter(millis, TimeUnit.MILLISECONDS)), body, new StreamObserver<>() {
            @Override
            public void onNext(byte[] value) {
                delay.receive(to, () -> answer.complete(value));
            }

            @Override
            public void onError(Throwable t) {
                raw[to].resetConnectBackoff();
                delay.receive(to, () -> answer.completeExceptionally(t));
            }

            @Override
            public void onCompleted() {}
        }));
        return answer;
    }

    @Override
    public void close() {
        for (ManagedChannel ch : raw) if (ch != null) ch.shutdownNow();
        delay.close(); // after the channels: what was under way fails now instead of arriving late
    }
}
