package dev.gyro.protocol;

import java.util.List;

/**
 * The ring's membership (docs/decisions/44-ring-changes.md): its members in the order the token visits them, and where
 * the token stood when this membership took effect. A change of membership is a global request's state update
 * ({@link StateUpdate#ring()}), so every instance takes the new ring at the same point of the gsn order; its holder
 * then passes the next hop by it.
 *
 * <p>Hop {@code hop} was held by {@code holder}, the member that made the change (for the first ring: hop 0, instance
 * 0); from there every pass adds one to the hop and goes to the successor, so hop {@code hop + k} is held by the member
 * {@code k} places after {@code holder}. That is what tells an instance which hop it may receive next, and so whether
 * its database is behind the ring.
 *
 * <p>A change travels as a row of Gyro's metadata table {@value #TABLE} among the update's changes ({@link #change}),
 * so every instance records it in the DBMS transaction that applies the update, as the gsn it came with.
 *
 * @param epoch   0 for the ring the cluster started with, one more for each change
 * @param members instance ids, in token order, each once
 * @param hop     the token's hop when this membership took effect
 * @param holder  the member that held that hop
 */
public record Ring(long epoch, List<Integer> members, long hop, int holder) {

    public Ring {
        members = List.copyOf(members);
        if (members.isEmpty()) throw new IllegalArgumentException("a ring needs a member");
        if (members.stream().distinct().count() != members.size())
            throw new IllegalArgumentException("ring " + members + " names an instance twice");
        for (int m : members) if (m < 0) throw new IllegalArgumentException("ring " + members + " names instance " + m);
        if (!members.contains(holder))
            throw new IllegalArgumentException("ring " + members + " does not hold its holder " + holder);
        if (epoch < 0 || hop < 0) throw new IllegalArgumentException("ring epoch and hop must not be negative");
    }

    /** The metadata table that holds the ring's membership, in one row. */
    public static final String TABLE = "gyro_ring";
    private static final List<String> COLUMNS = List.of("id", "epoch", "hop", "holder", "members");

    /** This ring as the row of {@link #TABLE} that records it. */
    public RowChange change() {
        StringBuilder m = new StringBuilder();
        for (int id : members) m.append(m.isEmpty() ? "" : ",").append(id);
        return new RowChange(TABLE, RowChange.Kind.UPSERT, COLUMNS, List.of(new Value.Int(1), new Value.Int(epoch),
                new Value.Int(hop), new Value.Int(holder), new Value.Text(m.toString())), List.of("id"));
    }

    /**
     * The ring the row of {@link #TABLE} among {@code changes} records, or null if there is none.
     *
     * @throws IllegalArgumentException for a row that records no ring
     */
    public static Ring in(List<RowChange> changes) {
        Ring found = null;
        for (RowChange c : changes) {
            if (!c.table().equals(TABLE)) continue;
            if (c.kind() != RowChange.Kind.UPSERT || !c.columns().equals(COLUMNS))
                throw new IllegalArgumentException("a change of " + TABLE + " must be an UPSERT of " + COLUMNS);
            try {
                List<Integer> members = new java.util.ArrayList<>();
                for (String m : ((Value.Text) c.value("members")).value().split(",")) members.add(Integer.parseInt(m));
                found = new Ring(((Value.Int) c.value("epoch")).value(), members, ((Value.Int) c.value("hop")).value(),
                        (int) ((Value.Int) c.value("holder")).value());
            } catch (ClassCastException | NumberFormatException e) {
                throw new IllegalArgumentException("a change of " + TABLE + " records no ring: " + c.values());
            }
        }
        return found;
    }

    /** The ring a cluster of {@code size} instances starts with: 0, 1, ..., size - 1; instance 0 holds hop 0. */
    public static Ring initial(int size) {
        if (size < 1) throw new IllegalArgumentException("a ring needs at least one instance, got " + size);
        return new Ring(0, java.util.stream.IntStream.range(0, size).boxed().toList(), 0, 0);
    }

    public int size() {
        return members.size();
    }

    public boolean contains(int id) {
        return members.contains(id);
    }

    /** The member the token goes to after {@code id}. */
    public int successor(int id) {
        return members.get((index(id) + 1) % members.size());
    }

    /** The member the token comes to {@code id} from. */
    public int predecessor(int id) {
        return members.get((index(id) - 1 + members.size()) % members.size());
    }

    /** The member that holds hop {@code h} (at or after {@link #hop}). */
    public int holderOf(long h) {
        if (h < hop) throw new IllegalArgumentException("hop " + h + " came before this ring (from hop " + hop + ")");
        return members.get((int) ((index(holder) + (h - hop)) % members.size()));
    }

    /** The first hop after {@code after} that member {@code id} holds. */
    public long nextHop(int id, long after) {
        long first = hop + Math.floorMod(index(id) - index(holder), members.size());
        if (first > after) return first;
        long rounds = (after - first) / members.size() + 1;
        return first + rounds * members.size();
    }

    /** The ring {@code newMembers}, made by {@code by} while it held hop {@code atHop}. */
    public Ring next(List<Integer> newMembers, long atHop, int by) {
        return new Ring(epoch + 1, newMembers, atHop, by);
    }

    private int index(int id) {
        int i = members.indexOf(id);
        if (i < 0) throw new IllegalArgumentException("instance " + id + " is no member of ring " + members);
        return i;
    }
}
