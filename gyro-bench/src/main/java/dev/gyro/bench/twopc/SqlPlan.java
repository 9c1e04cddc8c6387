package dev.gyro.bench.twopc;

import dev.gyro.app.Sharding;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.JdbcParameter;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.StringValue;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.expression.operators.relational.EqualsTo;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.expression.operators.relational.InExpression;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.delete.Delete;
import net.sf.jsqlparser.statement.insert.Insert;
import net.sf.jsqlparser.statement.select.Join;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.update.Update;
import net.sf.jsqlparser.util.TablesNamesFinder;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What the 2pc router needs to know about one SQL statement, worked out once per statement text: whether it writes
 * and which table, every table it references (subqueries included), and for each reference to a sharded table the
 * values its sharding column is pinned to ({@code col = ?}, {@code col = literal}, {@code col IN (...)} in a WHERE
 * conjunct, or the column's value in an INSERT). Two references whose sharding columns are equated
 * ({@code a.col = b.col}) are co-located: they live on the same shard.
 */
final class SqlPlan {

    enum Kind { SELECT, INSERT, UPDATE, DELETE }

    /** A value a sharding column is pinned to: a parameter (1-based) or a literal. */
    record Key(int parameter, Object literal) {
        Object value(Map<Integer, Object> parameters) {
            return parameter > 0 ? parameters.get(parameter) : literal;
        }
    }

    /** One table reference: the table, the name it is referred to by (alias or table), its pinned keys. */
    record Ref(String table, String name, boolean sharded, List<List<Key>> keys) {}

    final String sql;
    final Kind kind;
    final Statement statement;
    /** The written table, upper case; null for a SELECT. */
    final String target;
    final List<Ref> refs;
    /** Pairs of reference indexes whose sharding columns are equated. */
    final List<int[]> colocated;

    private SqlPlan(String sql, Kind kind, Statement statement, String target, List<Ref> refs, List<int[]> colocated) {
        this.sql = sql;
        this.kind = kind;
        this.statement = statement;
        this.target = target;
        this.refs = refs;
        this.colocated = colocated;
    }

    boolean writes() {
        return kind != Kind.SELECT;
    }

    static SqlPlan of(String sql, Sharding sharding) {
        Statement st;
        try {
            st = CCJSqlParserUtil.parse(sql);
        } catch (JSQLParserException e) {
            throw new UnsupportedOperationException("the 2pc router cannot parse: " + sql + " (" + e.getMessage() + ")");
        }
        // Every ? prints as ?N from now on: federated queries rebuilt from parts of the tree keep their numbers.
        List<Table> tables = new ArrayList<>();
        new TablesNamesFinder<Void>() {
            @Override
            public <S> Void visit(JdbcParameter p, S context) {
                p.setUseFixedIndex(true);
                return null;
            }

            @Override
            public <S> Void visit(Table t, S context) {
                tables.add(t);
                return super.visit(t, context);
            }
        }.getTables(st);

        Kind kind;
        String target = null;
        if (st instanceof Select) kind = Kind.SELECT;
        else if (st instanceof Insert i) {
            kind = Kind.INSERT;
            target = upper(i.getTable().getName());
            if (i.getSelect() != null && i.getValues() == null)
                throw new UnsupportedOperationException("the 2pc router does not run INSERT ... SELECT: " + sql);
        } else if (st instanceof Update u) {
            kind = Kind.UPDATE;
            target = upper(u.getTable().getName());
        } else if (st instanceof Delete d) {
            kind = Kind.DELETE;
            target = upper(d.getTable().getName());
        } else throw new UnsupportedOperationException("the 2pc router runs SELECT, INSERT, UPDATE and DELETE, not: " + sql);

        List<Ref> refs = new ArrayList<>();
        Map<Table, Integer> index = new LinkedHashMap<>();
        for (Table t : tables) {
            String name = upper(t.getName());
            boolean sharded = sharding.columnOf(name) != null;
            if (!sharded && !sharding.isReplicated(name))
                throw new UnsupportedOperationException("table " + name + " is neither sharded nor replicated: " + sql);
            index.put(t, refs.size());
            refs.add(new Ref(name, t.getAlias() != null ? upper(t.getAlias().getName()) : name, sharded,
                    new ArrayList<>()));
        }
        List<int[]> colocated = new ArrayList<>();
        // The WHERE clauses, each with the references of its own FROM (qualifier resolution is per query block).
        for (Block b : blocks(st, tables, index)) b.pin(refs, sharding, colocated);
        if (st instanceof Insert ins && sharding.columnOf(target) != null) {
            String col = sharding.columnOf(target);
            List<Column> cols = ins.getColumns();
            int at = -1;
            for (int k = 0; cols != null && k < cols.size(); k++) if (upper(cols.get(k).getColumnName()).equals(col)) at = k;
            ExpressionList<?> values = ins.getValues() == null ? null : ins.getValues().getExpressions();
            if (at < 0 || values == null || values.size() <= at || key(values.get(at)) == null)
                throw new UnsupportedOperationException("the 2pc router needs the sharding column " + col
                        + " among an INSERT's listed values: " + sql);
            refs.get(index.get(ins.getTable())).keys().add(List.of(key(values.get(at))));
        }
        return new SqlPlan(sql, kind, st, target, List.copyOf(refs), List.copyOf(colocated));
    }

    /** A query block: a WHERE clause and the references of its FROM. */
    private record Block(Expression where, List<Integer> refs) {
        void pin(List<Ref> all, Sharding sharding, List<int[]> colocated) {
            for (Expression c : conjuncts(where)) {
                if (c instanceof EqualsTo eq) {
                    Column l = eq.getLeftExpression() instanceof Column x ? x : null;
                    Column r = eq.getRightExpression() instanceof Column x ? x : null;
                    if (l != null && r != null) {
                        int a = shardingRef(l, all, sharding), b = shardingRef(r, all, sharding);
                        if (a >= 0 && b >= 0) colocated.add(new int[] {a, b});
                        continue;
                    }
                    Column col = l != null ? l : r;
                    Expression other = l != null ? eq.getRightExpression() : eq.getLeftExpression();
                    int ref = col == null ? -1 : shardingRef(col, all, sharding);
                    Key k = key(other);
                    if (ref >= 0 && k != null) all.get(ref).keys().add(List.of(k));
                } else if (c instanceof InExpression in && !in.isNot() && in.getLeftExpression() instanceof Column col
                        && in.getRightExpression() instanceof ExpressionList<?> list) {
                    int ref = shardingRef(col, all, sharding);
                    List<Key> keys = new ArrayList<>();
                    for (Expression e : list) keys.add(key(e));
                    if (ref >= 0 && !keys.contains(null)) all.get(ref).keys().add(keys);
                }
            }
        }

        /** The reference whose sharding column this is, among this block's; -1 if none. */
        private int shardingRef(Column c, List<Ref> all, Sharding sharding) {
            String col = upper(c.getColumnName());
            String q = c.getTable() == null || c.getTable().getName() == null ? null : upper(c.getTable().getName());
            int found = -1;
            for (int i : refs) {
                Ref r = all.get(i);
                if (!r.sharded() || !col.equals(sharding.columnOf(r.table()))) continue;
                if (q != null && !q.equals(r.name()) && !q.equals(r.table())) continue;
                if (found >= 0) return -1; // ambiguous: pin nothing
                found = i;
            }
            return found;
        }
    }

    private static List<Block> blocks(Statement st, List<Table> tables, Map<Table, Integer> index) {
        List<Block> out = new ArrayList<>();
        if (st instanceof Update u) out.add(new Block(u.getWhere(), List.of(index.get(u.getTable()))));
        if (st instanceof Delete d) out.add(new Block(d.getWhere(), List.of(index.get(d.getTable()))));
        // Every plain select anywhere in the statement (top level, unions, subqueries).
        new TablesNamesFinder<Void>() {
            @Override
            public <S> Void visit(PlainSelect ps, S context) {
                List<Integer> own = new ArrayList<>();
                if (ps.getFromItem() instanceof Table t && index.containsKey(t)) own.add(index.get(t));
                if (ps.getJoins() != null)
                    for (Join j : ps.getJoins()) if (j.getFromItem() instanceof Table t && index.containsKey(t)) own.add(index.get(t));
                Expression where = ps.getWhere();
                if (ps.getJoins() != null)
                    for (Join j : ps.getJoins())
                        for (Expression on : j.getOnExpressions()) where = where == null ? on : new AndExpression(where, on);
                out.add(new Block(where, own));
                return super.visit(ps, context);
            }
        }.getTables(st);
        return out;
    }

    static List<Expression> conjuncts(Expression e) {
        List<Expression> out = new ArrayList<>();
        if (e == null) return out;
        if (e instanceof AndExpression a) {
            out.addAll(conjuncts(a.getLeftExpression()));
            out.addAll(conjuncts(a.getRightExpression()));
        } else if (e instanceof net.sf.jsqlparser.expression.Parenthesis p) {
            out.addAll(conjuncts(p.getExpression()));
        } else out.add(e);
        return out;
    }

    static Key key(Expression e) {
        if (e instanceof JdbcParameter p && p.getIndex() != null) return new Key(p.getIndex(), null);
        if (e instanceof LongValue l) return new Key(0, l.getValue());
        if (e instanceof StringValue s) return new Key(0, s.getValue());
        return null;
    }

    static String upper(String s) {
        String u = s.toUpperCase(Locale.ROOT);
        return u.startsWith("\"") || u.startsWith("`") ? u.substring(1, u.length() - 1) : u;
    }

    /** The tables this statement reads or writes, upper case. */
    Set<String> tables() {
        Set<String> out = new TreeSet<>();
        for (Ref r : refs) out.add(r.table());
        return out;
    }
}
