package dev.gyro.protocol;

/** Messages between instances of one ring. Delivery may be delayed, duplicated, reordered or lost. */
public sealed interface Message permits Message.TokenPass, Message.TokenAck, Message.Want {

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
}
