package dev.gyro.analyzer.model;

import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * An entry {@code e = <A, C>} of a read set or a write set (paper, Section VI): the accessed attributes
 * {@code A} (columns of one table) and the condition {@code C} selecting the rows.
 *
 * <p>{@link #ALL} in the attributes means every column of the table (a whole row: INSERT, DELETE,
 * {@code SELECT *}, {@code COUNT(*)}); the table {@link #ANY_TABLE} means any table (SQL the analysis
 * could not read). Table and column names are upper-cased.
 *
 * @param table      the table, upper case, or {@link #ANY_TABLE}
 * @param attributes the accessed columns, upper case, possibly {@link #ALL}
 * @param condition  the rows accessed
 * @param source     the statement in the source code this entry comes from
 * @param sql        the statement's SQL text as analyzed (for reasons and the --sets listing)
 */
public record Entry(String table, Set<String> attributes, Condition condition, SourceRef source, String sql) {
    public static final String ALL = "*";
    public static final String ANY_TABLE = "*";

    public Entry {
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(condition, "condition");
        attributes = Set.copyOf(attributes.isEmpty() ? Set.of(ALL) : attributes);
    }

    /** Line 3 of Algorithm 2: {@code r.A ∩ w.A ≠ ∅}, on the same table. */
    public boolean overlaps(Entry other) {
        boolean sameTable = table.equals(ANY_TABLE) || other.table.equals(ANY_TABLE) || table.equals(other.table);
        if (!sameTable) {
            return false;
        }
        if (attributes.contains(ALL) || other.attributes.contains(ALL)) {
            return true;
        }
        for (String a : attributes) {
            if (other.attributes.contains(a)) {
                return true;
            }
        }
        return false;
    }

    /** The attributes both entries access, for reasons ({@code ITEMS.STOCK}). */
    public Set<String> sharedAttributes(Entry other) {
        Set<String> shared = new TreeSet<>();
        if (attributes.contains(ALL)) {
            shared.addAll(other.attributes);
        } else if (other.attributes.contains(ALL)) {
            shared.addAll(attributes);
        } else {
            for (String a : attributes) {
                if (other.attributes.contains(a)) {
                    shared.add(a);
                }
            }
        }
        return shared;
    }

    public String describeAttributes() {
        String t = table.equals(ANY_TABLE) ? "any table" : table;
        if (attributes.size() == 1) {
            return t + "." + attributes.iterator().next();
        }
        return t + ".{" + String.join(",", new TreeSet<>(attributes)) + "}";
    }

    @Override
    public String toString() {
        return "<" + describeAttributes() + ", " + condition + "> (" + source + ")";
    }
}
