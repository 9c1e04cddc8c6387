package dev.gyro.analyzer.sql;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Equivalence classes of terms (columns, values) under the equalities of a conjunction. Elements are
 * compared with {@code equals}: records by value, everything else by identity.
 */
final class UnionFind<T> {
    private final Map<T, T> parent = new LinkedHashMap<>();

    void add(T x) {
        parent.putIfAbsent(x, x);
    }

    T find(T x) {
        add(x);
        T root = x;
        while (!parent.get(root).equals(root)) {
            root = parent.get(root);
        }
        T cur = x;
        while (!cur.equals(root)) {
            T next = parent.get(cur);
            parent.put(cur, root);
            cur = next;
        }
        return root;
    }

    void union(T a, T b) {
        T ra = find(a);
        T rb = find(b);
        if (!ra.equals(rb)) {
            parent.put(rb, ra);
        }
    }

    boolean contains(T x) {
        return parent.containsKey(x);
    }

    /** The members of x's class, in insertion order. */
    List<T> members(T x) {
        T root = find(x);
        List<T> out = new ArrayList<>();
        for (T e : new ArrayList<>(parent.keySet())) {
            if (find(e).equals(root)) {
                out.add(e);
            }
        }
        return out;
    }

    List<T> elements() {
        return new ArrayList<>(parent.keySet());
    }
}
