package dev.gyro.protocol;

/**
 * Everything a driver feeds a {@link ConveyorBelt}, as a closed set (etcd raft's {@code Step(msg)}): the inputs of an
 * instance can be listed, logged and replayed. {@link ConveyorBelt#step} takes one and does exactly what the
 * {@code on...} method it names does, so a recorded sequence fed to a fresh belt (same configuration, state and clock)
 * asks for the same actions. The runtime's belt loop and the simulator both feed their belts through it.
 */
public sealed interface BeltEvent {

    /** The driver starts: it performs what the recovered belt asks for first (e.g. resend a passed token); no input. */
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
     * Something the belt's state rests on is in doubt (docs/decisions/11-fail-stop.md): the driver stops the instance
     * once the events before are handled, and a restart recovers from its durable state. Fed to a belt, it throws.
     */
    record FailStop(String reason, Throwable cause) implements BeltEvent {}
}
