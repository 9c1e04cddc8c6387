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
 * @param ring    the ring's membership from this gsn on, when the request changed it (docs/decisions/44-ring-changes.md):
 *                the ring as its change of {@link Ring#TABLE} in {@code changes} says; null for every other update
 */
public record StateUpdate(long gsn, int origin, List<RowChange> changes, Ring ring) {
    public StateUpdate {
        changes = List.copyOf(changes);
        if (gsn <= 0) throw new IllegalArgumentException("gsn must be positive, was " + gsn);
        if (origin < 0) throw new IllegalArgumentException("origin must be an instance id, was " + origin);
        Ring said = Ring.in(changes);
        if (ring == null) ring = said;
        else if (!ring.equals(said))
            throw new IllegalArgumentException("update of gsn " + gsn + " names ring " + ring + " but its changes say "
                    + said);
        if (ring != null && ring.holder() != origin)
            throw new IllegalArgumentException("the ring change of gsn " + gsn + " was made by instance " + origin
                    + " but names instance " + ring.holder() + " as its holder");
    }

    /** An update; its ring is the one its changes name, if any. */
    public StateUpdate(long gsn, int origin, List<RowChange> changes) {
        this(gsn, origin, changes, null);
    }
}
