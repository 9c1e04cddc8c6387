package dev.gyro.protocol;

import java.util.List;

/**
 * The state update of one executed global request (paper Section V: the write-only "state update
 * request" {@code u}), as it rides the token from its origin to every other instance.
 *
 * @param gsn     global sequence number: the position of the global request in the total order the
 *                token imposes. Gsns are dense (1, 2, 3, ...) over successful global requests that wrote
 *                something, so "last applied gsn" is a complete description of what an instance has seen.
 * @param origin  the instance that executed the global request (the {@code q} of {@code <u, q>})
 * @param changes the row images, in the order the request wrote them
 */
public record StateUpdate(long gsn, int origin, List<RowChange> changes) {
    public StateUpdate {
        changes = List.copyOf(changes);
        if (gsn <= 0) throw new IllegalArgumentException("gsn must be positive, was " + gsn);
        if (origin < 0) throw new IllegalArgumentException("origin must be an instance id, was " + origin);
    }
}
