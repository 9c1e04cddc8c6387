package dev.gyro.protocol;

import java.util.List;

/**
 * The Conveyor Belt token (paper Section V, Algorithm 1): the sequence of {@code <u, q>} tuples not yet seen
 * by every instance. Only the instance holding the token (the primary) executes global requests.
 *
 * @param hop     how many times the token has been passed since the ring started. There is one token, and
 *                every pass increments the hop, so a token whose hop an instance has already received is a
 *                duplicate (a retransmission) and is acknowledged but not processed again.
 * @param updates state updates in gsn order
 */
public record Token(long hop, List<StateUpdate> updates) {
    public Token {
        updates = List.copyOf(updates);
        if (hop < 0) throw new IllegalArgumentException("hop must not be negative, was " + hop);
        for (int i = 1; i < updates.size(); i++)
            if (updates.get(i).gsn() <= updates.get(i - 1).gsn())
                throw new IllegalArgumentException("token updates out of gsn order at index " + i);
    }

    public long maxGsn() {
        return updates.isEmpty() ? 0 : updates.get(updates.size() - 1).gsn();
    }
}
