package dev.gyro.analyzer.partition;

import dev.gyro.analyzer.model.Entry;
import dev.gyro.analyzer.model.Equality;
import dev.gyro.analyzer.model.Value;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One conjunction {@code e.C ∧ e'.C} of a conflict condition (Algorithm 2, lines 4, 6 and 8): the
 * condition under which a request of transaction t (side 0) and a request of t' (side 1) access the same
 * row. Columns are columns of that one row; parameters and free values are tagged with their side, since
 * even for t = t' they belong to two different requests.
 *
 * <p>Deciding it is exact for conjunctions of equalities: the clause is satisfiable unless two constants
 * that cannot be equal are forced equal (line 9), and it forces the partitioning parameter k of t to equal
 * k' of t' exactly when both fall in one equivalence class (the {@code k = A ∧ k' = A} clauses of line 17).
 */
public final class Clause {

    /** A pair of input parameters, one of each side, that the clause forces to be equal. */
    public record ParamPair(String side0, String side1) {
    }

    private record ColumnTerm(String column) {
    }

    private record ParamTerm(int side, String name) {
    }

    private record FreeTerm(int side, Value.Free free) {
    }

    private final Map<Object, Object> parent = new HashMap<>();
    private final List<Equality> side0;
    private final List<Equality> side1;
    private final boolean satisfiable;
    private final Set<ParamPair> implied;

    private Clause(Entry first, Entry second) {
        this.side0 = first.condition().equalities();
        this.side1 = second.condition().equalities();
        for (Equality e : side0) {
            union(new ColumnTerm(e.column()), term(0, e.value()));
        }
        for (Equality e : side1) {
            union(new ColumnTerm(e.column()), term(1, e.value()));
        }
        this.satisfiable = checkSatisfiable();
        this.implied = impliedPairs();
    }

    /** The clause {@code first.C ∧ second.C}, {@code first} belonging to side 0. */
    public static Clause of(Entry first, Entry second) {
        return new Clause(first, second);
    }

    private static Object term(int side, Value v) {
        if (v instanceof Value.Param p) {
            return new ParamTerm(side, p.name());
        }
        if (v instanceof Value.Free free) {
            return new FreeTerm(side, free);
        }
        return v; // constants are the same on both sides
    }

    private Object find(Object x) {
        parent.putIfAbsent(x, x);
        Object root = x;
        while (!parent.get(root).equals(root)) {
            root = parent.get(root);
        }
        return root;
    }

    private void union(Object a, Object b) {
        Object ra = find(a);
        Object rb = find(b);
        if (!ra.equals(rb)) {
            parent.put(rb, ra);
        }
    }

    private boolean checkSatisfiable() {
        Map<Object, List<Value.Constant>> constants = new HashMap<>();
        for (Object x : new ArrayList<>(parent.keySet())) {
            if (x instanceof Value.Constant c) {
                constants.computeIfAbsent(find(x), k -> new ArrayList<>()).add(c);
            }
        }
        for (List<Value.Constant> cs : constants.values()) {
            for (int i = 0; i < cs.size(); i++) {
                for (int j = i + 1; j < cs.size(); j++) {
                    if (!cs.get(i).mayEqual(cs.get(j))) {
                        return false;
                    }
                }
            }
        }
        return true;
    }

    private Set<ParamPair> impliedPairs() {
        Set<ParamPair> out = new LinkedHashSet<>();
        List<ParamTerm> params = new ArrayList<>();
        for (Object x : parent.keySet()) {
            if (x instanceof ParamTerm p) {
                params.add(p);
            }
        }
        for (ParamTerm a : params) {
            for (ParamTerm b : params) {
                if (a.side() == 0 && b.side() == 1 && find(a).equals(find(b))) {
                    out.add(new ParamPair(a.name(), b.name()));
                }
            }
        }
        return out;
    }

    /** Line 9 of Algorithm 2: whether some pair of requests can satisfy the clause. */
    public boolean satisfiable() {
        return satisfiable;
    }

    /** Whether the clause forces parameter {@code k} of side 0 to equal {@code k2} of side 1. */
    public boolean implies(String k, String k2) {
        return implied.contains(new ParamPair(k, k2));
    }

    public Set<ParamPair> impliedEqualities() {
        return implied;
    }

    /** The clause as text, naming each side's parameters by their transaction ({@code addItem.cartId}). */
    public String render(String table, String name0, String name1) {
        List<String> parts = new ArrayList<>();
        for (Equality e : side0) {
            parts.add(table + "." + e.column() + " = " + renderValue(e.value(), name0));
        }
        if (side0.isEmpty()) {
            parts.add("any row (" + name0 + ")");
        }
        for (Equality e : side1) {
            parts.add(table + "." + e.column() + " = " + renderValue(e.value(), name1));
        }
        if (side1.isEmpty()) {
            parts.add("any row (" + name1 + ")");
        }
        return String.join(" AND ", parts);
    }

    private static String renderValue(Value v, String owner) {
        if (v instanceof Value.Param p) {
            return owner + "." + p.name();
        }
        return v.toString();
    }
}
