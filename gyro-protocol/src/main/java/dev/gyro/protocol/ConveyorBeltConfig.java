package dev.gyro.protocol;

/**
 * Validated once, then immutable.
 *
 * @param self                 this instance's position in the ring (0-based)
 * @param ringSize             number of instances; the token goes from {@code i} to {@code (i+1) % ringSize}
 * @param maxQueuedGlobals     bound on global requests waiting for the token; beyond it requests are refused
 * @param tokenResendMillis    resend an unacknowledged token after this long
 * @param wantResendMillis     repeat a WANT after this long while a global request still waits; each repeat of one wait
 *                             waits twice as long as the one before, up to 8 times this
 * @param parallelGlobals      run each round's snapshot of global requests concurrently
 *                             ({@link Action.ExecuteGlobals}) instead of one at a time ({@link Action.ExecuteGlobal}):
 *                             only for a DBMS with commit ordering (paper Appendix B;
 *                             docs/decisions/06-commit-ordering.md)
 * @param updatesAhead         the holder sends each update it commits to every other instance at once
 *                             ({@link Message.UpdateAhead}), which applies it ahead of the token when it has applied
 *                             every gsn before it ({@link Action.ApplyAhead}; docs/decisions/25-updates-ahead.md)
 * @param trimToken            with updates ahead: an instance that applied them ahead says so to their maker
 *                             ({@link Message.AppliedAhead}), and a holder leaves off the token it passes the updates
 *                             every other instance has applied (docs/decisions/26-trimmed-token.md)
 */
public record ConveyorBeltConfig(int self, int ringSize, int maxQueuedGlobals, long tokenResendMillis,
                                 long wantResendMillis, boolean parallelGlobals, boolean updatesAhead,
                                 boolean trimToken) {
    public ConveyorBeltConfig {
        if (ringSize < 1) throw new IllegalArgumentException("ringSize must be at least 1, was " + ringSize);
        if (self < 0 || self >= ringSize)
            throw new IllegalArgumentException("self must be in [0, " + ringSize + "), was " + self);
        if (maxQueuedGlobals < 1) throw new IllegalArgumentException("maxQueuedGlobals must be at least 1");
        if (tokenResendMillis < 1 || wantResendMillis < 1)
            throw new IllegalArgumentException("resend intervals must be at least 1 ms");
    }

    /** Globals one at a time. */
    public ConveyorBeltConfig(int self, int ringSize, int maxQueuedGlobals, long tokenResendMillis,
                              long wantResendMillis) {
        this(self, ringSize, maxQueuedGlobals, tokenResendMillis, wantResendMillis, false, false, false);
    }

    /** Updates only with the token. */
    public ConveyorBeltConfig(int self, int ringSize, int maxQueuedGlobals, long tokenResendMillis,
                              long wantResendMillis, boolean parallelGlobals) {
        this(self, ringSize, maxQueuedGlobals, tokenResendMillis, wantResendMillis, parallelGlobals, false, false);
    }

    public static ConveyorBeltConfig of(int self, int ringSize) {
        return new ConveyorBeltConfig(self, ringSize, 10_000, 500, 200);
    }

    public ConveyorBeltConfig withParallelGlobals(boolean parallel) {
        return new ConveyorBeltConfig(self, ringSize, maxQueuedGlobals, tokenResendMillis, wantResendMillis, parallel,
                updatesAhead, trimToken);
    }

    public ConveyorBeltConfig withUpdatesAhead(boolean ahead) {
        return new ConveyorBeltConfig(self, ringSize, maxQueuedGlobals, tokenResendMillis, wantResendMillis,
                parallelGlobals, ahead, trimToken);
    }

    public ConveyorBeltConfig withTrimToken(boolean trim) {
        return new ConveyorBeltConfig(self, ringSize, maxQueuedGlobals, tokenResendMillis, wantResendMillis,
                parallelGlobals, updatesAhead, trim);
    }
}
