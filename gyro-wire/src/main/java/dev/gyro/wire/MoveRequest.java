package dev.gyro.wire;

import dev.gyro.protocol.Value;

import java.util.List;

/**
 * The request that moves buckets to another instance (docs/decisions/43-bucket-moves.md): Gyro's own global request
 * {@value #TRANSACTION}(to, buckets), sent to the buckets' present owner, which runs it in its token rounds: first
 * the copy of the buckets' rows, then their cutover, which the owner asks for itself as {@value #TRANSACTION}(to,
 * buckets, the copy's gsn).
 */
public final class MoveRequest {

    /** Its transaction name; its parameters are the new owner (an instance id) and the buckets ("3,17,42"). */
    public static final String TRANSACTION = "gyro.moveBuckets";

    private MoveRequest() {}

    /** The request that moves {@code buckets} to instance {@code to}. */
    public static Request of(int to, int... buckets) {
        StringBuilder s = new StringBuilder();
        for (int b : buckets) s.append(s.isEmpty() ? "" : ",").append(b);
        return new Request(TRANSACTION, List.of(new Value.Int(to), new Value.Text(s.toString())), false, 0);
    }
}
