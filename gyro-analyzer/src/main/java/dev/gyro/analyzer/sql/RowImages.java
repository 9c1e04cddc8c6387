package dev.gyro.analyzer.sql;

import dev.gyro.analyzer.model.Entry;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Resolves what a row image carries ({@link Entry#IMAGE}). A global request's state update is, for each
 * row it wrote, the row's primary key and all its values afterwards (docs/decisions/04-row-images.md); an
 * instance applying it overwrites every column, including those the UPDATE did not set. Such a copied
 * column is a write only if its value can differ between instances, that is, if some statement of the
 * application can change it in a row that exists (an UPDATE that sets it, an upsert, unknown SQL). A
 * column that only INSERT gives a value to holds, on every instance that has the row, the value it was
 * inserted with: two requests that insert the same key conflict on its existence, so rows of one key are
 * inserted by one partition, or by a global request that every instance applies.
 *
 * <p>So an UPDATE by rows writes its SET columns plus the columns some statement can change, except the
 * primary key the image is located by. Anything unknown (the table's columns or primary key) widens to
 * the whole row.
 */
public final class RowImages {
    private final Schema schema;
    /** Per table, the columns some statement changes in existing rows; {@link Entry#ALL} if any may change. */
    private final Map<String, Set<String>> changeable = new HashMap<>();
    private boolean anyTable;

    private RowImages(Schema schema) {
        this.schema = schema;
    }

    /** Learns from every write entry of every transaction which columns can change. */
    public static RowImages of(Collection<? extends Collection<Entry>> writeSets, Schema schema) {
        RowImages images = new RowImages(schema);
        for (Collection<Entry> writes : writeSets) {
            for (Entry w : writes) {
                images.learn(w);
            }
        }
        return images;
    }

    private void learn(Entry w) {
        if (w.effect() == Entry.Effect.CREATE || w.effect() == Entry.Effect.DELETE) {
            return; // a new row, or a row gone: no existing row's column changes
        }
        if (w.table().equals(Entry.ANY_TABLE)) {
            anyTable = true;
            return;
        }
        Set<String> columns = changeable.computeIfAbsent(w.table(), t -> new HashSet<>());
        if (w.effect() == Entry.Effect.CHANGE) {
            for (String a : w.attributes()) {
                if (!a.equals(Entry.IMAGE)) {
                    columns.add(a);
                }
            }
        } else {
            columns.add(Entry.ALL);
        }
    }

    /** Whether every column {@code other} takes as changeable this one does too (it is at least as wide). */
    public boolean covers(RowImages other) {
        if (anyTable) {
            return true;
        }
        if (other.anyTable) {
            return false;
        }
        for (Map.Entry<String, Set<String>> e : other.changeable.entrySet()) {
            Set<String> mine = changeable.getOrDefault(e.getKey(), Set.of());
            if (!mine.contains(Entry.ALL) && !mine.containsAll(e.getValue())) {
                return false;
            }
        }
        return true;
    }

    /** The entry with {@link Entry#IMAGE} replaced by the columns the image may really overwrite. */
    public Entry resolve(Entry e) {
        if (!e.attributes().contains(Entry.IMAGE)) {
            return e;
        }
        Set<String> out = new TreeSet<>(e.attributes());
        out.remove(Entry.IMAGE);
        Set<String> changes = changeable.getOrDefault(e.table(), Set.of());
        List<String> key = schema.primaryKey(e.table());
        if (anyTable || changes.contains(Entry.ALL)) {
            if (key.isEmpty() || !schema.declared(e.table())) {
                return new Entry(e.table(), Set.of(Entry.ALL), e.condition(), e.source(), e.sql(), Entry.Effect.ANY);
            }
            changes = new HashSet<>(schema.declaredColumns(e.table()));
        }
        for (String c : changes) {
            if (!key.contains(c)) {
                out.add(c);
            }
        }
        return new Entry(e.table(), out, e.condition(), e.source(), e.sql(), e.effect());
    }
}
