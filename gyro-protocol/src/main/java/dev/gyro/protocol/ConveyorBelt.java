package dev.gyro.protocol;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The Conveyor Belt protocol of one instance (paper Section V, Algorithm 1) as a pure state machine.
 *
 * <p>It does no I/O and has no threads, clock or randomness: the runtime feeds it events ({@code on*}
 * methods), then collects the {@link Action}s it asks for with {@link #ready()} and performs them. All calls
 * must come from one thread at a time. Local requests never pass through here (Algorithm 1, lines 2-4): the
 * runtime runs them at once.
 *
 * <p>Beyond Algorithm 1, which assumes a token that circulates forever over reliable channels, this machine:
 * <ul>
 *   <li>parks the token at its holder when a round leaves it empty and nobody waits, so an idle ring sends no
 *       messages; an instance with a waiting global request broadcasts {@link Message.Want}, and the holder
 *       resumes passing. A global request thus waits for at most the token's trip from the holder to it;</li>
 *   <li>optionally sends each update its holder commits to every other instance at once, which applies it ahead of
 *       the token once it has applied every gsn before it ({@link ConveyorBeltConfig#updatesAhead()}): applying a
 *       prefix of the gsn order early is what an earlier arrival of the token would have done, and the token then
 *       finds less to apply (docs/decisions/25-updates-ahead.md); and optionally leaves off the token it passes the
 *       updates every other instance said it applied ({@link ConveyorBeltConfig#trimToken()}, decision 26);</li>
 *   <li>survives lost and duplicated messages and restarts: a passed token is resent until acknowledged, the
 *       receiver acknowledges only after durably recording it (in the same DBMS transaction that applies its
 *       updates), and token hops identify duplicates; see {@link DurableState} for what survives a crash.</li>
 * </ul>
 */
public final class ConveyorBelt {

    /** Where this instance stands with respect to the token. */
    public enum Role {
        /** Does not hold the token. */
        FOLLOWER,
        /** Received the token; its updates are being applied (Algorithm 1, lines 8-12). */
        APPLYING,
        /** Holds the token and executes its snapshot of queued global requests (lines 13-18). */
        PRIMARY,
        /** Holds an empty token that nobody asked for; resumes on a local global request or a WANT. */
        PARKED
    }

    private final ConveyorBeltConfig config;
    private final int self;
    // The ring's membership (docs/decisions/44-ring-changes.md): the one the cluster started with until an update this
    // instance applies or makes changes it. The token goes to this instance's successor in it.
    private Ring ring;

    private Role role;
    private long lastGsn;
    private long lastReceivedHop;
    // The highest hop this instance passed and knows its successor durably recorded (acknowledged, or the token came
    // back around); -1 for none. Only in memory: what a restarted successor's database must at least hold.
    private long successorHasHop = -1;

    // The token while this instance holds it (APPLYING, PRIMARY, PARKED).
    private long heldHop;
    private final List<StateUpdate> heldUpdates = new ArrayList<>();
    private int ackTo = -1;

    // Q and Q' of Algorithm 1.
    private final ArrayDeque<Long> queue = new ArrayDeque<>();
    private final ArrayDeque<Long> snapshot = new ArrayDeque<>();
    private long executing = -1;
    // With parallel globals (Appendix B): the snapshot's requests not reported yet; of those, the ones that wait
    // for a gsn to commit, in the order they became ready; and the one whose commit holds the next gsn.
    private final java.util.LinkedHashSet<Long> executingInParallel = new java.util.LinkedHashSet<>();
    private final ArrayDeque<Long> readyToCommit = new ArrayDeque<>();
    private long committing = -1;

    private static final long NEVER = Long.MIN_VALUE / 2;

    /** How many times {@link ConveyorBeltConfig#wantResendMillis()} a waiting instance lets pass at most between WANTs. */
    static final int WANT_BACKOFF_LIMIT = 8;

    // Updates received ahead of the token, by gsn, beyond the last applied one; only while a follower. Bounded: one
    // beyond the bound is dropped, since the token brings it anyway.
    static final int MAX_AHEAD = 4096;
    private final java.util.TreeMap<Long, StateUpdate> ahead = new java.util.TreeMap<>();
    // And the ones applied ahead since the token was last here: the token must bring the very same (else an instance
    // sent one it did not commit, and this database holds it: a divergence, so the instance stops). Bounded alike.
    private final java.util.TreeMap<Long, StateUpdate> appliedAhead = new java.util.TreeMap<>();
    // With a trimmed token: the highest gsn each instance said it applied ahead (Message.AppliedAhead), 0 for none. Only
    // in memory: forgetting it after a restart only leaves the token longer.
    private final java.util.Map<Integer, Long> appliedBy = new java.util.HashMap<>();

    private boolean wanted;
    // The last WANT of the present wait, and how long until the next may go: wantResendMillis after the first, doubled
    // after each one since, up to WANT_BACKOFF_LIMIT times it. Delivered once, a WANT is enough: whoever holds the token
    // when it would park passes it on instead, or resumes passing when the WANT finds it parked. Only a lost WANT (a
    // peer down or restarting, which forgets it) needs another, and on a busy ring, whose token takes seconds to come
    // round, WANTs every wantResendMillis were most of the peer messages sent.
    private long wantSentAt = NEVER;
    private long wantBackoff;
    private Token unacked;
    private long unackedSentAt;
    private long now;

    private final List<Action> actions = new ArrayList<>();

    /**
     * Starts (or restarts) an instance from what its database recorded.
     *
     * @param nowMillis the runtime's current time, used only to schedule resends
     */
    public ConveyorBelt(ConveyorBeltConfig config, DurableState state, long nowMillis) {
        this.config = config;
        this.self = config.self();
        this.ring = state.ring() != null ? state.ring() : Ring.initial(config.ringSize());
        this.now = nowMillis;
        this.lastGsn = state.lastGsn();
        switch (state.tokenStatus()) {
            case NONE -> {
                role = Role.FOLLOWER;
                lastReceivedHop = -1;
            }
            case PASSED -> {
                role = Role.FOLLOWER;
                lastReceivedHop = state.token().hop() - 1;
                // A ring that changed after this pass was changed by a later holder: the token was received.
                if (state.token().hop() > ring.hop()) {
                    unacked = state.token();
                    unackedSentAt = now;
                    emit(new Action.Send(next(), new Message.TokenPass(self, unacked)));
                }
            }
            case HELD -> {
                // Restarted while holding the token: the token as received, plus the updates of the global
                // requests this instance executed since (its outbox), is exactly the token it would pass.
                Token token = state.token();
                lastReceivedHop = token.hop();
                heldHop = token.hop();
                heldUpdates.addAll(token.updates());
                for (StateUpdate u : state.outbox()) if (u.gsn() > token.maxGsn()) heldUpdates.add(u);
                check(heldUpdates.isEmpty() || heldUpdates.get(heldUpdates.size() - 1).gsn() <= lastGsn,
                        "recovered token carries gsn beyond the database's last applied gsn " + lastGsn);
                role = Role.PRIMARY;
                finishRound();
            }
        }
    }

    // ---------------------------------------------------------------- events

    /**
     * Feeds one event (etcd raft's {@code Step}): does exactly what the {@code on...} method it names does; a
     * {@link BeltEvent.Start} does nothing. {@link #ready()} then returns the actions it asks for.
     *
     * @return false only for a {@link BeltEvent.GlobalRequest} refused because the queue is full
     * @throws IllegalArgumentException for a message from no member of the ring ({@link #onMessage})
     * @throws IllegalStateException    when the event breaks the belt's invariants, and always for a
     *                                  {@link BeltEvent.FailStop}
     */
    public boolean step(BeltEvent event) {
        if (event instanceof BeltEvent.GlobalRequest g) return onGlobalRequest(g.requestId());
        if (event instanceof BeltEvent.MessageReceived m) onMessage(m.message());
        else if (event instanceof BeltEvent.Tick t) onTick(t.nowMillis());
        else if (event instanceof BeltEvent.UpdatesApplied u) onUpdatesApplied(u.hop());
        else if (event instanceof BeltEvent.AheadApplied a) onAheadApplied(a.ahead());
        else if (event instanceof BeltEvent.ReadyToCommit r) onReadyToCommit(r.requestId());
        else if (event instanceof BeltEvent.CommitAborted c) onCommitAborted(c.requestId());
        else if (event instanceof BeltEvent.GlobalExecuted e) onGlobalExecuted(e.requestId(), e.update());
        else if (event instanceof BeltEvent.FailStop f) throw new IllegalStateException(f.reason(), f.cause());
        return true;
    }

    /**
     * A global request arrived from a client (Algorithm 1, line 6: append to Q).
     *
     * @return false if the queue is full; the request was not accepted and the client must be told so
     */
    public boolean onGlobalRequest(long requestId) {
        if (!ring.contains(self)) return false; // taken out of the ring: the token never comes here again
        if (queue.size() + snapshot.size() >= config.maxQueuedGlobals()) return false;
        queue.addLast(requestId);
        if (role == Role.PARKED) {
            startPrimaryRound();
        } else if (role == Role.FOLLOWER) {
            maybeSendWant();
        }
        return true;
    }

    /** A message from another instance of the ring. */
    public void onMessage(Message message) {
        int from = message.from();
        if (from < 0 || from == self)
            throw new IllegalArgumentException("message from unknown instance " + from + " at instance " + self);
        if (message instanceof Message.TokenPass pass) {
            receiveToken(pass); // its sender is checked against the ring the token leaves
            return;
        }
        if (!ring.contains(from)) // a member this instance does not know yet says nothing the belt needs
            throw new IllegalArgumentException("message from unknown instance " + from + " at instance " + self
                    + ": no member of the ring " + ring.members() + " (epoch " + ring.epoch() + ")");
        if (message instanceof Message.TokenAck ack) {
            if (from != next()) { // a token goes only to the successor, so only it acknowledges one
                if (ring.epoch() > 0 && unacked == null) return; // one passed before the ring changed, and received
                throw new IllegalArgumentException("acknowledgement of hop " + ack.hop() + " from instance " + from
                        + " at instance " + self + ", which passes the token only to instance " + next());
            }
            if (unacked != null && ack.hop() == unacked.hop()) successorRecorded();
        } else if (message instanceof Message.Want) {
            wanted = true;
            if (role == Role.PARKED) startPrimaryRound();
        } else if (message instanceof Message.UpdateAhead a) {
            receiveAhead(a);
        } else if (message instanceof Message.AppliedAhead a) {
            // Sent to the maker of gsn a.gsn(), so no instance can rightly name a gsn beyond the ones made here: that
            // would let the token leave behind updates the sender does not have.
            if (a.gsn() > lastGsn)
                throw new IllegalArgumentException("instance " + from + " says it applied gsn " + a.gsn()
                        + " ahead of the token, but instance " + self + " made gsns only up to " + lastGsn);
            appliedBy.merge(from, a.gsn(), Math::max);
        }
    }

    /**
     * The runtime committed {@code done}, updates applied ahead of the token: with a trimmed token, tell the maker of
     * its last gsn, which holds the token or held it last, that this instance has every gsn up to there (decision 26).
     */
    public void onAheadApplied(Action.ApplyAhead done) {
        if (!config.trimToken() || !ring.contains(self)) return;
        int maker = done.updates().get(done.updates().size() - 1).origin();
        emit(new Action.Send(maker, new Message.AppliedAhead(self, done.lastGsn())));
    }

    /** The runtime finished {@link Action.ApplyUpdates} for the token of this hop. */
    public void onUpdatesApplied(long hop) {
        check(role == Role.APPLYING && hop == heldHop, "updates applied for hop " + hop + " while " + role
                + " at hop " + heldHop);
        lastReceivedHop = hop;
        if (ackTo >= 0) emit(new Action.Send(ackTo, new Message.TokenAck(self, hop))); // none for a pass to itself
        startPrimaryRound();
    }

    /**
     * The runtime finished {@link Action.ExecuteGlobal} for {@code requestId}, or, with parallel globals, one
     * request of {@link Action.ExecuteGlobals}: committed under the gsn its {@link Action.CommitGlobal} granted,
     * or failed (rolled back), or wrote nothing.
     *
     * @param update the request's state update, or null if it failed or wrote nothing
     */
    public void onGlobalExecuted(long requestId, StateUpdate update) {
        if (config.parallelGlobals()) {
            check(role == Role.PRIMARY && executingInParallel.remove(requestId), "global request " + requestId
                    + " finished but is not one of " + executingInParallel + " executing (" + role + ")");
            check(update == null || committing == requestId, "global request " + requestId + " committed gsn "
                    + (update == null ? "-" : update.gsn()) + " without a commit grant (granted: " + committing + ")");
            readyToCommit.remove(requestId); // it gave up waiting (the instance is stopping)
            if (committing == requestId) committing = -1;
            if (update != null) appendOwnUpdate(update);
            grantNextCommit();
            if (executingInParallel.isEmpty()) finishRound();
            return;
        }
        check(role == Role.PRIMARY && executing == requestId,
                "global request " + requestId + " finished but " + executing + " was executing (" + role + ")");
        executing = -1;
        if (update != null) appendOwnUpdate(update);
        executeNext();
    }

    /**
     * Parallel globals only (Appendix B): request {@code requestId} of the round ran to the end of its own DBMS
     * transaction, wrote something, and waits for a gsn to commit. The belt grants gsns one commit at a time, in
     * the order requests become ready ({@link Action.CommitGlobal}), so that gsn order is commit order.
     */
    public void onReadyToCommit(long requestId) {
        check(config.parallelGlobals() && role == Role.PRIMARY && executingInParallel.contains(requestId)
                        && committing != requestId && !readyToCommit.contains(requestId),
                "global request " + requestId + " is ready to commit but is not one of " + executingInParallel
                        + " executing and waiting (" + role + ")");
        readyToCommit.addLast(requestId);
        grantNextCommit();
    }

    /**
     * Parallel globals only: the commit that {@link Action.CommitGlobal} granted to {@code requestId} failed and
     * rolled back, so its gsn is unused. The request is still executing: the runtime runs it again (and reports
     * it ready again) or reports it executed with no update.
     */
    public void onCommitAborted(long requestId) {
        check(config.parallelGlobals() && role == Role.PRIMARY && committing == requestId,
                "commit of global request " + requestId + " aborted but " + committing + " holds the commit grant");
        committing = -1;
        grantNextCommit();
    }

    private void grantNextCommit() {
        if (committing >= 0 || readyToCommit.isEmpty()) return;
        committing = readyToCommit.pollFirst();
        emit(new Action.CommitGlobal(committing, lastGsn + 1));
    }

    private void appendOwnUpdate(StateUpdate update) {
        check(update.gsn() == lastGsn + 1 && update.origin() == self,
                "update " + update.gsn() + " from " + update.origin() + " does not follow gsn " + lastGsn);
        Ring before = ring;
        if (update.ring() != null) { // this instance changed the ring while it holds hop heldHop
            Ring r = update.ring();
            check(r.epoch() == ring.epoch() + 1 && r.hop() == heldHop && r.contains(self), "the ring change of gsn "
                    + update.gsn() + " (epoch " + r.epoch() + ", hop " + r.hop() + ", " + r.members() + ") does not"
                    + " follow ring epoch " + ring.epoch() + " at hop " + heldHop + " with this instance in it");
            ring = r;
        }
        lastGsn = update.gsn();
        heldUpdates.add(update); // line 16: append <u, p> to T
        if (config.updatesAhead()) {
            Message.UpdateAhead m = new Message.UpdateAhead(self, update);
            broadcast(m);
            // And to the members this change takes out (docs/decisions/44-ring-changes.md): the token no longer comes to
            // them, so this is how they hear that they are out, refuse global requests and stop.
            for (int i : before.members()) if (i != self && !ring.contains(i)) emit(new Action.Send(i, m));
        }
    }

    /**
     * An update sent ahead of the token. Only the token's holder makes gsns, and it sends only its own: while this
     * instance holds the token, or for a gsn it has applied, there is nothing to do. Otherwise the update waits until
     * every gsn before it is here, and then the run of consecutive gsns is applied at once (decision 25).
     */
    private void receiveAhead(Message.UpdateAhead a) {
        StateUpdate u = a.update();
        if (u.origin() != a.from())
            throw new IllegalArgumentException("update of gsn " + u.gsn() + " made by instance " + u.origin()
                    + " sent ahead by instance " + a.from() + " at instance " + self
                    + ": an instance sends only its own updates ahead");
        if (!config.updatesAhead() || role != Role.FOLLOWER || u.gsn() <= lastGsn) return;
        if (ahead.size() >= MAX_AHEAD && !ahead.containsKey(u.gsn())) return;
        ahead.put(u.gsn(), u);
        List<StateUpdate> run = new ArrayList<>();
        for (StateUpdate next; (next = ahead.remove(lastGsn + 1)) != null; ) {
            run.add(next);
            lastGsn = next.gsn();
            if (appliedAhead.size() < MAX_AHEAD) appliedAhead.put(next.gsn(), next);
            if (next.ring() != null) changeRing(next.ring());
        }
        if (!run.isEmpty()) emit(new Action.ApplyAhead(run, lastGsn));
    }

    /** Time passes. Drives resends; call it every few milliseconds. */
    public void onTick(long nowMillis) {
        now = nowMillis;
        if (unacked != null && now - unackedSentAt >= config.tokenResendMillis()) {
            unackedSentAt = now;
            emit(new Action.Send(next(), new Message.TokenPass(self, unacked)));
        }
        if (role == Role.FOLLOWER && !queue.isEmpty()) maybeSendWant();
    }

    /** The actions to perform, in order; clears them. */
    public List<Action> ready() {
        if (actions.isEmpty()) return List.of();
        List<Action> out = List.copyOf(actions);
        actions.clear();
        return out;
    }

    // ---------------------------------------------------------------- queries

    public Role role() { return role; }

    public long lastGsn() { return lastGsn; }

    public int queuedGlobals() {
        return queue.size() + snapshot.size() + (executing >= 0 ? 1 : 0) + executingInParallel.size();
    }

    public boolean holdsToken() { return role != Role.FOLLOWER; }

    /**
     * Whether a {@link BeltEvent.Tick} can make this belt act: a token it passed is not acknowledged yet (resent), or a
     * global request waits here for the token (a WANT). Otherwise a tick only tells it the time, and a runtime need not
     * tick at all: an idle ring costs nothing. Before the next event after such a pause, the runtime tells it the time
     * with one tick, so that the resends it then schedules count from now.
     */
    public boolean waitsForTime() {
        return unacked != null || (role == Role.FOLLOWER && !queue.isEmpty() && ring.size() > 1);
    }

    /**
     * The hop of the token this instance last received and recorded, -1 if it never received one. Instance 0's first
     * token (hop 0) is one nobody passed; hop {@code h} is always held by instance {@code h mod ringSize}, since every
     * pass adds one to the hop and goes to the successor.
     */
    public long lastReceivedHop() { return lastReceivedHop; }

    /** The highest hop this instance passed that its successor acknowledged (or passed on), -1 if none yet. */
    public long successorHasHop() { return successorHasHop; }

    public int self() { return self; }

    /** The ring's membership as this instance knows it (docs/decisions/44-ring-changes.md). */
    public Ring ring() { return ring; }

    /** The member this instance passes the token to. */
    private int next() {
        return ring.successor(self);
    }

    /**
     * A ring change this instance applied (ahead of the token, or with it). A token passed before it was received: the
     * holder that made the change held a later hop.
     */
    private void changeRing(Ring r) {
        if (r.epoch() <= ring.epoch()) return;
        ring = r;
        if (unacked != null && unacked.hop() <= r.hop()) successorRecorded();
    }

    // ---------------------------------------------------------------- transitions

    private void receiveToken(Message.TokenPass pass) {
        Token token = pass.token();
        // The ring the token left its sender by: this instance's, with the changes the token carries.
        Ring after = ring;
        for (StateUpdate u : token.updates()) if (u.ring() != null && u.ring().epoch() > after.epoch()) after = u.ring();
        if (!ring.contains(pass.from()) && !after.contains(pass.from()))
            throw new IllegalArgumentException("token from instance " + pass.from() + " at instance " + self
                    + ", which is no member of the ring " + after.members());
        if (unacked != null && token.hop() > unacked.hop()) successorRecorded(); // it went around: it was received
        if (token.hop() <= lastReceivedHop) {
            emit(new Action.Send(pass.from(), new Message.TokenAck(self, token.hop())));
            return;
        }
        if (role == Role.APPLYING && token.hop() == heldHop) return; // resent while we apply it
        check(role == Role.FOLLOWER, "received token of hop " + token.hop() + " while " + role + " at hop "
                + heldHop + ": two tokens");
        if (!after.contains(self))
            throw new IllegalArgumentException("token of hop " + token.hop() + " from instance " + pass.from()
                    + " at instance " + self + ", which is no member of the ring " + after.members());
        int predecessor = after.predecessor(self);
        if (pass.from() != predecessor) // the ring's order (Section V): a token from elsewhere is a misconfiguration
            throw new IllegalArgumentException("token from instance " + pass.from() + " at instance " + self
                    + ", whose predecessor in the ring is " + predecessor);
        // The updates of members taken out of the ring are dropped, as their makers would have, by the member that made
        // the last change: the token went round every member since.
        boolean adopter = after.epoch() > 0 && after.holder() == self;
        // Checked before anything changes: a token that contradicts this instance's state leaves it as it was.
        List<StateUpdate> kept = new ArrayList<>();
        List<StateUpdate> toApply = new ArrayList<>();
        long gsn = lastGsn;
        for (StateUpdate u : token.updates()) {
            // On the ring the cluster started with, every update comes from a member (a Token already holds its gsns in
            // strictly increasing order): anything else was not made by the belt, and is refused before it changes
            // anything. Once the ring changed, an update may come from a member since taken out.
            check(after.epoch() > 0 || u.origin() < config.ringSize(), "token of hop " + token.hop() + " carries gsn "
                    + u.gsn() + " from instance " + u.origin() + ", which is no member of the ring");
            if (u.origin() == self) continue; // lines 9-10: own updates have been seen by all others
            if (adopter && !after.contains(u.origin()) && u.gsn() <= lastGsn) continue;
            kept.add(u);
            if (u.gsn() > gsn) { // lines 11-12; at or below lastGsn: applied before a restart, or ahead of the token
                check(u.gsn() == gsn + 1, "gap in gsns: token carries " + u.gsn() + " after " + gsn);
                toApply.add(u);
                gsn = u.gsn();
            } else {
                StateUpdate early = appliedAhead.get(u.gsn());
                check(early == null || early.equals(u), () -> "token of hop " + token.hop() + " carries gsn " + u.gsn()
                        + " from instance " + u.origin() + ", and this instance applied another update of that gsn"
                        + " sent ahead of the token by instance " + early.origin() + ": its database holds a write the"
                        + " ring did not make");
            }
        }
        // Every pass adds one to the hop and goes to the successor, so this instance holds exactly the hops of its
        // place in the ring (self, self + n, self + 2n, ... on the first ring; Ring#nextHop): a later one means the ring
        // went round without it, i.e. its database is behind the ring (docs/decisions/13-secure-by-default.md), and any
        // other is no token the belt passed.
        long expected = after.nextHop(self, lastReceivedHop);
        check(token.hop() == expected, "token of hop " + token.hop() + " from instance " + pass.from()
                + ", but this instance last received hop " + lastReceivedHop + " (at gsn " + lastGsn
                + ") and can receive hop " + expected + " next" + (token.hop() > expected
                && after.holderOf(token.hop()) == self ? ": the ring went round without it, so its database is behind"
                + " the ring (recreated, or restored from a backup?); start it on the database it last ran on"
                : ": no hop this instance can hold"));
        changeRing(after);
        role = Role.APPLYING;
        ahead.clear(); // every gsn there is: at or below lastGsn, or in this token
        appliedAhead.clear();
        heldHop = token.hop();
        ackTo = pass.from();
        heldUpdates.clear();
        heldUpdates.addAll(kept);
        lastGsn = gsn;
        emit(new Action.ApplyUpdates(new Token(heldHop, heldUpdates), toApply, lastGsn));
    }

    private void successorRecorded() {
        successorHasHop = Math.max(successorHasHop, unacked.hop());
        unacked = null;
    }

    private void startPrimaryRound() {
        role = Role.PRIMARY;
        wantSentAt = NEVER; // the wait is over
        wantBackoff = 0;
        snapshot.addAll(queue); // line 13: Q' <- atomic-snapshot(Q)
        queue.clear();
        executeNext();
    }

    private void executeNext() {
        if (config.parallelGlobals()) {
            // Appendix B: the whole snapshot at once; gsns are granted at commit (onReadyToCommit), one at a time.
            if (snapshot.isEmpty()) {
                finishRound();
                return;
            }
            executingInParallel.addAll(snapshot);
            emit(new Action.ExecuteGlobals(new ArrayList<>(snapshot)));
            snapshot.clear();
            return;
        }
        Long requestId = snapshot.pollFirst(); // lines 14-18, one request at a time
        if (requestId == null) {
            finishRound();
            return;
        }
        executing = requestId;
        emit(new Action.ExecuteGlobal(requestId, lastGsn + 1));
    }

    private void finishRound() {
        if (ring.size() == 1 && !heldUpdates.isEmpty()) {
            // Alone, every update is seen by all at once. Pass the token to ourselves: the runtime records the
            // receipt as for any other (ApplyUpdates), which empties the outbox; otherwise it would keep every
            // update this instance ever executed.
            heldUpdates.clear();
            heldHop++;
            ackTo = -1;
            role = Role.APPLYING;
            emit(new Action.ApplyUpdates(new Token(heldHop, List.of()), List.of(), lastGsn));
            return;
        }
        if (!heldUpdates.isEmpty() || wanted) {
            passToken();
        } else if (!queue.isEmpty()) {
            startPrimaryRound(); // nobody else asked for the token: serve newcomers without a round trip
        } else {
            role = Role.PARKED;
        }
    }

    private void passToken() {
        wanted = false;
        if (config.trimToken()) leaveBehindWhatAllApplied();
        Token out = new Token(heldHop + 1, heldUpdates);
        heldUpdates.clear();
        role = Role.FOLLOWER;
        unacked = out;
        unackedSentAt = now;
        emit(new Action.PassToken(next(), out)); // line 19
        if (!queue.isEmpty()) maybeSendWant();
    }

    /**
     * Decision 26: an update every other instance has applied is of no use on the token (Algorithm 1 carries it only
     * until all have seen it), so it stays behind. Every instance that gets this token has a last gsn at or beyond the
     * updates left behind, so the ones it still needs are all on the token, without a gap.
     */
    private void leaveBehindWhatAllApplied() {
        long allHave = Long.MAX_VALUE;
        for (int i : ring.members()) if (i != self) allHave = Math.min(allHave, appliedBy.getOrDefault(i, 0L));
        int behind = 0;
        while (behind < heldUpdates.size() && heldUpdates.get(behind).gsn() <= allHave) behind++;
        heldUpdates.subList(0, behind).clear();
    }

    private void maybeSendWant() {
        if (ring.size() == 1 || now - wantSentAt < wantBackoff) return;
        wantBackoff = wantSentAt == NEVER ? config.wantResendMillis()
                : Math.min(2 * wantBackoff, WANT_BACKOFF_LIMIT * config.wantResendMillis());
        wantSentAt = now;
        broadcast(new Message.Want(self));
    }

    /** One message to every other instance: the same object for each, so the runtime may encode it once. */
    private void broadcast(Message m) {
        for (int i : ring.members())
            if (i != self) emit(new Action.Send(i, m));
    }

    private void emit(Action action) {
        actions.add(action);
    }

    private static void check(boolean condition, String message) {
        if (!condition) throw new IllegalStateException("Conveyor Belt invariant violated: " + message);
    }

    /** As {@link #check(boolean, String)}, for a message that can only be built when the check fails. */
    private static void check(boolean condition, java.util.function.Supplier<String> message) {
        if (!condition) check(false, message.get());
    }
}
