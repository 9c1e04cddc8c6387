package dev.gyro.runtime;

import dev.gyro.protocol.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;

/**
 * Never silent about a broken ring (docs/decisions/18-watching.md): watches, on this instance, whether its peers
 * answer its messages and whether the token it passed was acknowledged. Either failing for longer than {@link #ALARM}
 * ({@link #STARTING} for a peer that has not answered once yet: it may still be starting) is logged once at WARN, naming the peer and since when, and shows in the Status method and the metrics; when it
 * heals, an INFO line says it is back. The belt itself goes on resending as before (paper Section V; the resends are
 * the belt's, see ConveyorBelt): this class only watches.
 *
 * <p>Threads: the belt loop reports tokens sent and messages received, gRPC's callbacks report sends that arrived or
 * failed, the instance's timer calls {@link #check()}; all synchronized (none of it is on a request's way).
 */
final class RingWatch {

    private static final Logger log = LoggerFactory.getLogger(RingWatch.class);

    /** How long a peer may stay unreachable, or the token unacknowledged, before it is reported. */
    static final Duration ALARM = Duration.ofSeconds(2);

    /**
     * How long a peer that has not answered once since this instance started may take to start: the instances of a
     * ring start one after another (a database to open, a log to replay), and one that is still starting is not a
     * broken ring. A peer that never answers is reported after this long all the same.
     */
    static final Duration STARTING = Duration.ofSeconds(30);

    private final int self;
    private List<String> addresses;
    private final IntSupplier queuedGlobals;
    private final java.util.function.LongSupplier clock; // wall-clock milliseconds: "since" is a time of day

    private long passedHop = -1;
    private int passedTo = -1;
    private long passedAt;
    private boolean acknowledged = true;
    private boolean tokenReported;

    // By instance id; grown when an instance joins the ring (docs/decisions/44-ring-changes.md).
    private long[] unreachableSince; // wall-clock ms of the first failure in a row, 0 while reachable
    private String[] why;
    private boolean[] reported;
    private boolean[] answered; // the peer has answered since this instance started

    RingWatch(int self, List<String> addresses, IntSupplier queuedGlobals) {
        this(self, addresses, queuedGlobals, System::currentTimeMillis);
    }

    RingWatch(int self, List<String> addresses, IntSupplier queuedGlobals, java.util.function.LongSupplier clock) {
        this.clock = clock;
        this.self = self;
        this.addresses = List.copyOf(addresses);
        this.queuedGlobals = queuedGlobals;
        this.unreachableSince = new long[addresses.size()];
        this.why = new String[addresses.size()];
        this.reported = new boolean[addresses.size()];
        this.answered = new boolean[addresses.size()];
    }

    /** Instance {@code id} joined the ring at {@code address}: watched from now on. */
    synchronized void join(int id, String address) {
        if (id < addresses.size()) return;
        List<String> more = new ArrayList<>(addresses);
        while (more.size() < id) more.add("(unknown)");
        more.add(address);
        addresses = List.copyOf(more);
        unreachableSince = java.util.Arrays.copyOf(unreachableSince, more.size());
        why = java.util.Arrays.copyOf(why, more.size());
        reported = java.util.Arrays.copyOf(reported, more.size());
        answered = java.util.Arrays.copyOf(answered, more.size());
    }

    /** Instance {@code id} is reached at {@code address} from now on (docs/decisions/47-new-member.md). */
    synchronized void move(int id, String address) {
        if (id >= addresses.size()) return;
        List<String> moved = new ArrayList<>(addresses);
        moved.set(id, address);
        addresses = List.copyOf(moved);
    }

    /** Instance {@code id} was taken out of the ring: nothing is reported about it any more. */
    synchronized void leave(int id) {
        if (id >= addresses.size()) return;
        unreachableSince[id] = 0;
        reported[id] = false;
        why[id] = null;
        answered[id] = true;
        gone.add(id);
    }

    private final java.util.Set<Integer> gone = new java.util.HashSet<>();

    /**
     * The belt sent the token of {@code hop} to {@code to}.
     *
     * @return false for a resend of the same hop, which changes nothing
     */
    synchronized boolean tokenSent(int to, long hop) {
        if (hop == passedHop && to == passedTo) return false;
        passedHop = hop;
        passedTo = to;
        passedAt = clock.getAsLong();
        acknowledged = false;
        log.debug("instance {} passed the token of hop {} to instance {}", self, hop, to);
        return true;
    }

    /** A peer message arrived: an acknowledgement of the passed token, or the token itself come round again. */
    synchronized void received(Message m) {
        if (acknowledged) return;
        boolean ack = m instanceof Message.TokenAck a && a.from() == passedTo && a.hop() >= passedHop
                || m instanceof Message.TokenPass p && p.token().hop() > passedHop;
        if (!ack) return;
        acknowledged = true;
        if (tokenReported)
            log.info("instance {}: instance {} acknowledged the token of hop {} after {}: the ring moves again", self,
                    passedTo, passedHop, seconds(passedAt));
        tokenReported = false;
    }

    /** A message to {@code peer} arrived. */
    synchronized void reached(int peer) {
        if (peer >= answered.length) return;
        answered[peer] = true;
        if (unreachableSince[peer] == 0) return;
        if (reported[peer])
            log.info("instance {}: instance {} at {} is reachable again (unreachable since {}, {})", self, peer,
                    addresses.get(peer), Instant.ofEpochMilli(unreachableSince[peer]), seconds(unreachableSince[peer]));
        unreachableSince[peer] = 0;
        reported[peer] = false;
        why[peer] = null;
    }

    /** A message to {@code peer} could not be delivered ({@code reason}: the transport's words). */
    synchronized void unreachable(int peer, String reason) {
        if (peer >= unreachableSince.length || gone.contains(peer)) return;
        if (unreachableSince[peer] == 0) unreachableSince[peer] = clock.getAsLong();
        why[peer] = reason;
    }

    /** Reports what has been failing for longer than {@link #ALARM}, once per failure. Called every second or so. */
    synchronized void check() {
        long now = clock.getAsLong();
        for (int i = 0; i < unreachableSince.length; i++) {
            long bound = (answered[i] ? ALARM : STARTING).toMillis();
            if (unreachableSince[i] != 0 && !reported[i] && now - unreachableSince[i] >= bound) {
                reported[i] = true;
                log.warn("instance {}: instance {} at {} unreachable since {} ({}{}): {}; {} global request(s) wait here",
                        self, i, addresses.get(i), Instant.ofEpochMilli(unreachableSince[i]), seconds(unreachableSince[i]),
                        answered[i] ? "" : ", not once since this instance started", why[i], queuedGlobals.getAsInt());
            }
        }
        if (!acknowledged && !tokenReported && now - passedAt >= ALARM.toMillis()) {
            tokenReported = true;
            log.warn("instance {}: the token of hop {} passed to instance {} at {} is not acknowledged since {} ({}):"
                            + " the ring is broken there, and every global request waits until it is back", self,
                    passedHop, passedTo, addresses.get(passedTo), Instant.ofEpochMilli(passedAt), seconds(passedAt));
        }
    }

    /** Peers unreachable for longer than {@link #ALARM}. */
    synchronized int unreachablePeers() {
        int n = 0;
        for (boolean r : reported) if (r) n++;
        return n;
    }

    /** Seconds since the passed token went unacknowledged, 0 when it was acknowledged. */
    synchronized double tokenUnacknowledgedSeconds() {
        return acknowledged ? 0 : (clock.getAsLong() - passedAt) / 1000.0;
    }

    /** 1 while something is reported broken (a peer unreachable, the token unacknowledged), else 0. */
    synchronized int broken() {
        return tokenReported || unreachablePeers() > 0 ? 1 : 0;
    }

    /** What the Status method says about the ring from here. */
    synchronized Map<String, Object> status() {
        Map<String, Object> out = new LinkedHashMap<>();
        if (passedTo >= 0) {
            Map<String, Object> token = new LinkedHashMap<>();
            token.put("passedTo", passedTo);
            token.put("hop", passedHop);
            token.put("acknowledged", acknowledged);
            token.put("passedAt", Instant.ofEpochMilli(passedAt).toString());
            out.put("token", token);
        }
        List<Map<String, Object>> down = new ArrayList<>();
        for (int i = 0; i < unreachableSince.length; i++)
            if (reported[i])
                down.add(Map.of("instance", i, "address", addresses.get(i),
                        "since", Instant.ofEpochMilli(unreachableSince[i]).toString(), "error", String.valueOf(why[i])));
        out.put("unreachable", down);
        out.put("ringBroken", broken() == 1);
        List<Integer> members = new ArrayList<>(); // the ring's members by id (docs/decisions/44-ring-changes.md)
        for (int i = 0; i < addresses.size(); i++) if (!gone.contains(i)) members.add(i);
        out.put("members", members);
        return out;
    }

    private String seconds(long sinceMillis) {
        return String.format(java.util.Locale.ROOT, "%.1f s", (clock.getAsLong() - sinceMillis) / 1000.0);
    }
}
