package dev.gyro.analyzer.sql;

import dev.gyro.analyzer.model.Condition;
import dev.gyro.analyzer.model.Entry;
import dev.gyro.analyzer.model.Equality;
import dev.gyro.analyzer.model.SourceRef;
import dev.gyro.analyzer.model.Value;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.SelectItem;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Values read from a row name that row. When a transaction reads column C (or MAX/MIN of C) of a row of T
 * selected by equalities Q ({@code SELECT MAX(B_SEQ) FROM BIDS WHERE B_ITEM_ID = ? AND B_USER_ID = ?}) and
 * then accesses T at a unique key whose C is that value and whose other columns have the values Q gave
 * them ({@code DELETE FROM BIDS WHERE B_ITEM_ID = ? AND B_SEQ = ?}), the row accessed is the row read: it
 * satisfies Q too ({@code B_USER_ID = userId}). Sound within one transaction as long as the transaction
 * itself writes nothing else of T in between: so the rule applies only when the accessing statement is the
 * transaction's only writer of T, and the query its only read of T from that place.
 */
public final class ReadRows {
    /** A single-table query's select list: the column each item reads, null where it is not one column. */
    private record Shape(String table, List<String> items, List<String> labels) {
        String column(Value.Free.ReadAt at) {
            if (at.item() >= 1 && at.item() <= items.size()) {
                return items.get(at.item() - 1);
            }
            if (at.label() != null) {
                int i = labels.indexOf(Schema.normalize(at.label()));
                return i >= 0 ? items.get(i) : null;
            }
            return null;
        }
    }

    private final Map<SourceRef, Shape> shapes = new HashMap<>();
    private final Schema schema;

    public ReadRows(Collection<SqlAccessExtractor.Parsed> parsed, Schema schema) {
        this.schema = schema;
        for (SqlAccessExtractor.Parsed p : parsed) {
            if (p.statements().size() == 1 && p.statements().get(0) instanceof PlainSelect select) {
                Shape shape = shape(select);
                if (shape != null) {
                    shapes.merge(p.site().source(), shape, (a, b) -> a.equals(b) ? a : null);
                }
            }
        }
    }

    private static Shape shape(PlainSelect select) {
        if (!(select.getFromItem() instanceof Table table) || select.getJoins() != null && !select.getJoins().isEmpty()
                || select.getSelectItems() == null) {
            return null;
        }
        List<String> items = new ArrayList<>();
        List<String> labels = new ArrayList<>();
        for (SelectItem<?> item : select.getSelectItems()) {
            Expression e = item.getExpression();
            if (e instanceof Function f && f.getParameters() != null && f.getParameters().size() == 1
                    && ("MAX".equalsIgnoreCase(f.getName()) || "MIN".equalsIgnoreCase(f.getName()))) {
                e = (Expression) f.getParameters().get(0); // the greatest or least value of a row's column
            }
            String column = e instanceof Column c ? Schema.normalize(c.getColumnName()) : null;
            items.add(column);
            labels.add(item.getAlias() != null ? Schema.normalize(item.getAlias().getName()) : column);
        }
        return new Shape(Schema.normalize(table.getName()), items, labels);
    }

    /** The entries, each at a key read from a row given the equalities that row satisfied. */
    public List<Entry> strengthen(List<Entry> entries, List<Entry> reads, List<Entry> writes) {
        List<Entry> out = new ArrayList<>();
        for (Entry e : entries) {
            out.add(strengthen(e, reads, writes));
        }
        return out;
    }

    private Entry strengthen(Entry e, List<Entry> reads, List<Entry> writes) {
        for (Equality eq : e.condition().equalities()) {
            if (!(eq.value() instanceof Value.Free free) || free.readAt() == null) {
                continue;
            }
            Shape shape = shapes.get(free.readAt().query());
            if (shape == null || !shape.table().equals(e.table()) || !eq.column().equals(shape.column(free.readAt()))) {
                continue;
            }
            Condition read = onlyRead(reads, free.readAt().query(), e.table());
            if (read == null || !onlyWriter(writes, e)) {
                continue;
            }
            if (atSameKey(e.condition(), read, eq.column(), e.table())) {
                List<Equality> more = new ArrayList<>(e.condition().equalities());
                Set<String> bound = new java.util.HashSet<>();
                e.condition().equalities().forEach(x -> bound.add(x.column()));
                for (Equality q : read.equalities()) {
                    if (bound.add(q.column())) {
                        more.add(q);
                    }
                }
                return new Entry(e.table(), e.attributes(), new Condition(more, e.condition().widenings()), e.source(),
                        e.sql(), e.effect());
            }
        }
        return e;
    }

    private static Condition onlyRead(List<Entry> reads, SourceRef query, String table) {
        Condition found = null;
        for (Entry r : reads) {
            if (r.source().equals(query) && r.table().equals(table)) {
                if (found != null) {
                    return null; // the query runs on several paths with different conditions
                }
                found = r.condition();
            }
        }
        return found;
    }

    private static boolean onlyWriter(List<Entry> writes, Entry e) {
        for (Entry w : writes) {
            boolean sameTable = w.table().equals(e.table()) || w.table().equals(Entry.ANY_TABLE);
            if (sameTable && !w.source().equals(e.source())) {
                return false;
            }
        }
        return true;
    }

    /** Whether some unique key holding {@code column} has its other columns bound alike in both conditions. */
    private boolean atSameKey(Condition accessed, Condition read, String column, String table) {
        for (List<String> key : schema.uniqueKeys(table)) {
            if (!key.contains(column)) {
                continue;
            }
            boolean same = true;
            for (String k : key) {
                if (!k.equals(column) && !bindsAlike(accessed, read, k)) {
                    same = false;
                    break;
                }
            }
            if (same) {
                return true;
            }
        }
        return false;
    }

    private static boolean bindsAlike(Condition a, Condition b, String column) {
        for (Equality x : a.equalities()) {
            for (Equality y : b.equalities()) {
                if (x.column().equals(column) && y.column().equals(column) && !(x.value() instanceof Value.Free)
                        && x.value().equals(y.value())) {
                    return true;
                }
            }
        }
        return false;
    }
}
