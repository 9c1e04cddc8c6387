package dev.gyro.protocol;

/** Messages between instances of one ring. Delivery may be delayed, duplicated, reordered or lost. */
public sealed interface Message permits Message.TokenPass, Message.TokenAck, Message.Want,
        Message.UpdateAhead, Message.AppliedAhead {

    /** The sender. */
    int from();

    /** PASSTOKEN(T) of Algorithm 1, line 19. Retransmitted until acknowledged. */
    record TokenPass(int from, Token token) implements Message {}

    /** The receiver has durably recorded the token of this hop (it will never lose it). */
    record TokenAck(int from, long hop) implements Message {}

    /**
     * The sender has a global request waiting and does not hold the token. A parked token holder
     * resumes passing it; any other instance remembers to pass the token on when it next holds it.
     */
    record Want(int from) implements Message {}

    /**
     * A state update the sender, as the token's holder, just committed, sent to every other instance ahead of the
     * token (docs/decisions/25-updates-ahead.md): one that has applied every gsn before it applies it at once, so the
     * token finds less to apply. Best effort: the token still carries it, and a lost one costs nothing.
     */
    record UpdateAhead(int from, StateUpdate update) implements Message {}

    /**
     * The sender has durably applied every gsn up to {@code gsn}, the last of a run it applied ahead of the token; sent
     * to the instance that made that gsn (docs/decisions/26-trimmed-token.md). A holder that knows every other instance
     * has applied a gsn leaves its update off the token it passes. Best effort: a lost one only leaves the token
     * longer.
     */
    record AppliedAhead(int from, long gsn) implements Message {}
}
