package dev.gyro.wire;

import dev.gyro.protocol.Value;

import java.util.List;

/**
 * The requests that change the ring's membership (docs/decisions/44-ring-changes.md): Gyro's own global requests,
 * run by the token's holder in its round, whose update carries the new ring.
 */
public final class RingRequest {

    /**
     * A new instance joins the ring at the end of its order; its parameters: the new instance's address (host:port)
     * and, optionally, the id it was started with, which the ring refuses unless it is the next id.
     */
    public static final String JOIN = "gyro.joinRing";
    /** An instance leaves the ring; its parameter: the instance's id. It must own no bucket, and not run its own leave. */
    public static final String LEAVE = "gyro.leaveRing";
    /**
     * An instance is reached at another address from now on (a replicated group whose member on a lost machine was
     * replaced by one on another: docs/decisions/47-new-member.md); its parameters: the instance's id, its new address.
     */
    public static final String MOVE = "gyro.moveInstance";

    private RingRequest() {}

    /** The request that adds an instance at {@code address}; the reply names its id. */
    public static Request join(String address) {
        return new Request(JOIN, List.of(new Value.Text(address)), false, 0);
    }

    /**
     * The request that adds instance {@code id} at {@code address}: refused unless {@code id} is the id the ring gives
     * its next instance (an instance whose certificate names its id must be that one).
     */
    public static Request join(String address, int id) {
        return new Request(JOIN, List.of(new Value.Text(address), new Value.Int(id)), false, 0);
    }

    /** The request that takes instance {@code id} out of the ring. */
    public static Request leave(int id) {
        return new Request(LEAVE, List.of(new Value.Int(id)), false, 0);
    }

    /** The request that has instance {@code id} reached at {@code address} from now on. */
    public static Request move(int id, String address) {
        return new Request(MOVE, List.of(new Value.Int(id), new Value.Text(address)), false, 0);
    }

    /** Whether {@code transaction} is one of these. */
    public static boolean is(String transaction) {
        return JOIN.equals(transaction) || LEAVE.equals(transaction) || MOVE.equals(transaction);
    }
}
