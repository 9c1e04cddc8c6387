package dev.gyro.bench.twopc;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Where one execution of a statement runs, given its parameters: on one shard, on several, or (a read spanning
 * shards) federated by the coordinator ({@link Federation}).
 *
 * @param shards    the shards to send the statement to (for a federated read: empty)
 * @param federated whether the coordinator must gather the rows and evaluate the query itself
 */
record Route(BitSet shards, boolean federated) {

    static Route of(SqlPlan plan, Map<Integer, Object> parameters, Function<Object, Integer> shardOf, int shardCount,
                    int home) {
        List<BitSet> pinned = new ArrayList<>();
        for (SqlPlan.Ref r : plan.refs) pinned.add(r.sharded() ? pins(r, parameters, shardOf) : null);
        // Co-located references share their pins (a.col = b.col on the sharding columns): run to a fixed point.
        for (boolean changed = true; changed; ) {
            changed = false;
            for (int[] pair : plan.colocated) {
                BitSet a = pinned.get(pair[0]), b = pinned.get(pair[1]);
                if (a != null && b == null) { pinned.set(pair[1], (BitSet) a.clone()); changed = true; }
                else if (b != null && a == null) { pinned.set(pair[0], (BitSet) b.clone()); changed = true; }
            }
        }
        BitSet all = new BitSet();
        all.set(0, shardCount);
        if (!plan.writes()) {
            BitSet single = null;
            boolean anySharded = false;
            for (int i = 0; i < plan.refs.size(); i++) {
                if (!plan.refs.get(i).sharded()) continue;
                anySharded = true;
                BitSet p = pinned.get(i);
                if (p == null || p.cardinality() != 1 || (single != null && !single.equals(p))) return new Route(new BitSet(), true);
                single = p;
            }
            if (!anySharded) {
                BitSet h = new BitSet();
                h.set(home);
                return new Route(h, false);
            }
            return new Route(single, false);
        }
        int target = -1;
        for (int i = 0; i < plan.refs.size(); i++) if (plan.refs.get(i).table().equals(plan.target)) { target = i; break; }
        SqlPlan.Ref t = plan.refs.get(target);
        BitSet shards = t.sharded() ? (pinned.get(target) != null ? pinned.get(target) : all) : all;
        for (int i = 0; i < plan.refs.size(); i++) {
            if (i == target || !plan.refs.get(i).sharded()) continue;
            BitSet p = pinned.get(i);
            if (p == null || !p.equals(shards) || shards.cardinality() != 1)
                throw new UnsupportedOperationException("the 2pc router cannot run a write that reads sharded table "
                        + plan.refs.get(i).table() + " on another shard: " + plan.sql);
        }
        return new Route(shards, false);
    }

    /** The shards a sharded reference's keys allow; null when nothing pins it. */
    static BitSet pins(SqlPlan.Ref r, Map<Integer, Object> parameters, Function<Object, Integer> shardOf) {
        BitSet out = null;
        for (List<SqlPlan.Key> alternatives : r.keys()) {
            BitSet s = new BitSet();
            for (SqlPlan.Key k : alternatives) {
                Object v = k.value(parameters);
                if (v != null) s.set(shardOf.apply(v));
            }
            if (out == null) out = s;
            else out.and(s);
        }
        return out;
    }
}
