package dev.gyro.analyzer.model;

import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * An entry {@code e = <A, C>} of a read set or a write set (paper, Section VI): the accessed attributes
 * {@code A} (columns of one table) and the condition {@code C} selecting the rows.
 *
 * <p>{@link #ALL} in the attributes means every column of the table and the row's existence (a whole
 * row: INSERT, DELETE, {@code SELECT *}); the table {@link #ANY_TABLE} means any table (SQL the analysis
 * could not read). Table and column names are upper-cased.
 *
 * <p><b>Row existence is not a column</b> ({@link #EXISTENCE}): whether a row exists at a key is read by
 * every query that selects rows (an INSERT's duplicate-key check, {@code COUNT(*)}, {@code EXISTS},
 * {@code MAX(key)} read nothing else of the row), and written only by what creates, deletes or moves
 * rows (INSERT, DELETE, an UPDATE of a key column). An UPDATE that sets no key column changes some
 * columns of rows that exist and never their existence, so a request that only asks whether a row
 * exists does not read from it (Definition 1).
 *
 * @param table      the table, upper case, or {@link #ANY_TABLE}
 * @param attributes the accessed columns, upper case, possibly {@link #ALL}, {@link #EXISTENCE} or (until
 *                   the analysis resolves it) {@link #IMAGE}
 * @param condition  the rows accessed
 * @param source     the statement in the source code this entry comes from
 * @param sql        the statement's SQL text as analyzed (for reasons and the --sets listing)
 * @param effect     what a write does to rows ({@link Effect#ANY} for reads and unknown writes)
 */
public record Entry(String table, Set<String> attributes, Condition condition, SourceRef source, String sql,
                    Effect effect) {
    public static final String ALL = "*";
    public static final String ANY_TABLE = "*";
    /** The pseudo-column "this row exists": read by every query of the table, written by what adds or removes rows. */
    public static final String EXISTENCE = "(EXISTENCE)";
    /**
     * The columns a row image carries besides those the UPDATE sets (docs/decisions/04-row-images.md), before
     * the analysis has seen every statement: {@code Analyzer} replaces it by the columns that some statement
     * of the application can change in an existing row. A column nobody changes holds the same value on
     * every instance, so an image that copies it overwrites it with what is already there.
     */
    public static final String IMAGE = "(IMAGE)";

    /** What a write entry does to the rows it selects. */
    public enum Effect {
        /** Adds a row that did not exist (a plain INSERT, INSERT IGNORE, ON CONFLICT DO NOTHING). */
        CREATE,
        /** Removes rows (DELETE). */
        DELETE,
        /** Changes columns of rows that exist, keeping them where they are (an UPDATE of no key column). */
        CHANGE,
        /** Anything else, or a read. */
        ANY
    }

    public Entry {
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(condition, "condition");
        Objects.requireNonNull(effect, "effect");
        attributes = Set.copyOf(attributes.isEmpty() ? Set.of(ALL) : attributes);
    }

    public Entry(String table, Set<String> attributes, Condition condition, SourceRef source, String sql) {
        this(table, attributes, condition, source, sql, Effect.ANY);
    }

    /** Whether this entry may change whether a row exists (an UPDATE of no key column does not). */
    public boolean touchesExistence() {
        return attributes.contains(ALL) || attributes.contains(EXISTENCE);
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
