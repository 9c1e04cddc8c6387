package dev.gyro.runtime;

import dev.gyro.protocol.Action;
import dev.gyro.protocol.ConveyorBelt;
import dev.gyro.protocol.Message;
import dev.gyro.protocol.StateUpdate;

/**
 * Everything the belt loop feeds the instance's {@link ConveyorBelt}, as a closed set (etcd raft's {@code Step(msg)}):
 * the inputs of an instance can be listed, logged and replayed. {@link BeltLoop#step} takes them from any thread and
 * handles them one at a time on the loop's thread; {@link #feed} is what each does to the belt, and nothing else, so a
 * recorded sequence fed to a fresh belt (same configuration, state and clock) asks for the same actions.
 */
sealed interface BeltEvent {

    /**
     * Feeds this event to {@code belt} (on the belt's one thread).
     *
     * @return false only for a {@link GlobalRequest} the belt refused (its queue Q is full)
     * @throws IllegalArgumentException from {@link ConveyorBelt#onMessage} for a message from no member of the ring
     * @throws IllegalStateException    when the event breaks the belt's invariants (the loop then stops the instance)
     */
    default boolean feed(ConveyorBelt belt) {
        if (this instanceof GlobalRequest g) return belt.onGlobalRequest(g.requestId());
        if (this instanceof MessageReceived m) belt.onMessage(m.message());
        else if (this instanceof Tick t) belt.onTick(t.nowMillis());
        else if (this instanceof UpdatesApplied u) belt.onUpdatesApplied(u.hop());
        else if (this instanceof AheadApplied a) belt.onAheadApplied(a.ahead());
        else if (this instanceof ReadyToCommit r) belt.onReadyToCommit(r.requestId());
        else if (this instanceof CommitAborted c) belt.onCommitAborted(c.requestId());
        else if (this instanceof GlobalExecuted e) belt.onGlobalExecuted(e.requestId(), e.update());
        else if (this instanceof FailStop f) throw new IllegalStateException(f.reason(), f.cause());
        return true; // Start: nothing to feed, the recovered belt's first actions follow
    }

    /** The loop starts: perform what the recovered belt asks for first (e.g. resend a passed token). */
    record Start() implements BeltEvent {}

    /** Algorithm 1, line 6: global request {@code requestId} waits here for the token. */
    record GlobalRequest(long requestId) implements BeltEvent {}

    /** A message of another instance arrived (TokenPass, TokenAck, Want, UpdateAhead, AppliedAhead). */
    record MessageReceived(Message message) implements BeltEvent {}

    /** Time passed: the belt's resend timers. */
    record Tick(long nowMillis) implements BeltEvent {}

    /** {@link Action.ApplyUpdates} is durable: the token of {@code hop} is recorded as held. */
    record UpdatesApplied(long hop) implements BeltEvent {}

    /** {@link Action.ApplyAhead} is durable. */
    record AheadApplied(Action.ApplyAhead ahead) implements BeltEvent {}

    /** A global request of a parallel round wrote something and waits for its gsn ({@link Action.CommitGlobal}). */
    record ReadyToCommit(long requestId) implements BeltEvent {}

    /** The attempt granted a gsn did not commit: the gsn stays unused, the request asks again when ready. */
    record CommitAborted(long requestId) implements BeltEvent {}

    /** Global request {@code requestId} ended: committed as {@code update}, or without one (failed, or wrote nothing). */
    record GlobalExecuted(long requestId, StateUpdate update) implements BeltEvent {}

    /**
     * Something the belt's state rests on is in doubt (docs/decisions.md, decision 11): the loop stops the instance
     * once the events before are handled, and a restart recovers from the database. Never fed to the belt.
     */
    record FailStop(String reason, Throwable cause) implements BeltEvent {}
}
