package dev.gyro.protocol;

import java.util.List;

/**
 * What one instance keeps in its DBMS (the Gyro metadata tables) and hands back to a new {@link ConveyorBelt}
 * after a restart. Every field changes only inside the DBMS transaction whose effect it describes, so after a
 * crash the instance resumes exactly where its database says it was (docs/decisions/05-exactly-once.md).
 *
 * @param lastGsn     the highest gsn whose writes are in this database
 * @param tokenStatus whether the token was last received (HELD) or passed on (PASSED)
 * @param token       the token as last recorded: as received minus own updates (HELD), or as passed (PASSED)
 * @param outbox      own updates executed since the token was last received, in gsn order
 * @param ring        the ring's membership as of {@code lastGsn} (docs/decisions/44-ring-changes.md), or null for the one
 *                    the cluster started with
 */
public record DurableState(long lastGsn, TokenStatus tokenStatus, Token token, List<StateUpdate> outbox, Ring ring) {

    public enum TokenStatus { NONE, HELD, PASSED }

    public DurableState {
        outbox = List.copyOf(outbox);
        if ((tokenStatus == TokenStatus.NONE) != (token == null))
            throw new IllegalArgumentException("token must be present exactly when status is HELD or PASSED");
    }

    /** On the ring the cluster started with. */
    public DurableState(long lastGsn, TokenStatus tokenStatus, Token token, List<StateUpdate> outbox) {
        this(lastGsn, tokenStatus, token, outbox, null);
    }

    /** A new ring: instance 0 starts with the token (hop 0), everyone has applied nothing. */
    public static DurableState initial(int self) {
        return self == 0
                ? new DurableState(0, TokenStatus.HELD, new Token(0, List.of()), List.of())
                : new DurableState(0, TokenStatus.NONE, null, List.of());
    }
}
