package dev.gyro.bench.twopc;

import dev.gyro.app.Application;
import dev.gyro.app.Sharding;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.ExpressionVisitorAdapter;
import net.sf.jsqlparser.expression.operators.relational.EqualsTo;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.select.Join;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.rowset.CachedRowSet;
import javax.sql.rowset.RowSetProvider;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The 2pc coordinator's answer to a read that spans shards (a sharded table not pinned to one shard, or a join of
 * sharded tables that live on different shards): it fetches the rows the query can need from the shards, inside
 * the distributed transaction, into an in-memory SQLite database holding the application's schema, and evaluates
 * the query there, so ORDER BY, LIMIT, aggregates and joins come out exactly as one database would give them.
 *
 * <p>Which rows: per table reference, the query's conditions on that reference alone are pushed down, and a
 * reference joined by equality to one already fetched gets {@code col IN (the values fetched)} (a semi-join), sent
 * only to the shards those values live on when {@code col} is the sharding column. What this costs a 2pc deployment
 * is the price of data that is partitioned: the paper's MySQL Cluster does the same work in its data nodes.
 */
final class Federation implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Federation.class);
    private static final Pattern NUMBERED = Pattern.compile("\\?(\\d+)");
    /** Above this many values a semi-join is not pushed down (the conditions of the reference alone are). */
    private static final int MAX_IN = 500;

    /** The shards of one distributed transaction, as the federation reads them. */
    interface Shards {
        Connection on(int shard) throws SQLException;
        int count();
        int home();
        int shardOf(Object value);
    }

    private final Application app;
    private final Sharding sharding;
    private final ThreadLocal<Connection> memory = new ThreadLocal<>();
    private final List<Connection> memories = new ArrayList<>();
    private final Map<String, Set<String>> columns = new ConcurrentHashMap<>();
    private final Set<String> warned = ConcurrentHashMap.newKeySet();

    Federation(Application app, Sharding sharding) {
        this.app = app;
        this.sharding = sharding;
    }

    private Connection memory() throws SQLException {
        Connection m = memory.get();
        if (m == null) {
            m = DriverManager.getConnection("jdbc:sqlite::memory:");
            m.setAutoCommit(false);
            app.createSchema(m);
            m.commit();
            memory.set(m);
            synchronized (memories) {
                memories.add(m);
            }
        }
        return m;
    }

    private Set<String> columnsOf(String table) throws SQLException {
        Set<String> cols = columns.get(table);
        if (cols != null) return cols;
        cols = new LinkedHashSet<>();
        try (Statement s = memory().createStatement(); ResultSet rs = s.executeQuery("PRAGMA table_info(" + table + ")")) {
            while (rs.next()) cols.add(SqlPlan.upper(rs.getString("name")));
        }
        columns.put(table, cols);
        return cols;
    }

    /** Runs a spanning read: gathers, evaluates, returns the rows detached from every connection. */
    ResultSet query(SqlPlan plan, Map<Integer, Object> parameters, Shards shards) throws SQLException {
        Connection m = memory();
        Set<String> loaded = new LinkedHashSet<>();
        try {
            if (plan.statement instanceof Select s && s.getPlainSelect() != null && allTables(s.getPlainSelect()))
                gather(s.getPlainSelect(), plan, parameters, shards, loaded);
            for (SqlPlan.Ref r : plan.refs) // tables of subqueries and unions: whole
                if (!loaded.contains(r.table())) {
                    if (warned.add(plan.sql)) log.info("2pc federation reads table {} whole for: {}", r.table(), plan.sql);
                    load(r.table(), fetch(r.table(), "SELECT * FROM " + r.table(), List.of(), everywhereOrHome(r.table(), shards), shards), m);
                    loaded.add(r.table());
                }
            m.commit();
            List<Integer> order = new ArrayList<>();
            String sql = numbered(plan.statement.toString(), order);
            try (PreparedStatement ps = m.prepareStatement(sql)) {
                for (int i = 0; i < order.size(); i++) ps.setObject(i + 1, parameters.get(order.get(i)));
                try (ResultSet rs = ps.executeQuery()) {
                    CachedRowSet rows = RowSetProvider.newFactory().createCachedRowSet();
                    rows.populate(rs);
                    return rows;
                }
            }
        } finally {
            try (Statement s = m.createStatement()) {
                for (String t : loaded) s.executeUpdate("DELETE FROM " + t);
            }
            m.commit();
        }
    }

    private static boolean allTables(PlainSelect ps) {
        if (!(ps.getFromItem() instanceof Table)) return false;
        if (ps.getJoins() != null) for (Join j : ps.getJoins()) if (!(j.getFromItem() instanceof Table)) return false;
        return true;
    }

    /** One reference of the top-level FROM. */
    private record Source(String table, String name, List<Expression> own, List<Rows> fetched) {}

    private record Rows(List<String> columns, List<Object[]> rows) {
        List<Object> values(String column) {
            int at = columns.indexOf(column);
            List<Object> out = new ArrayList<>();
            if (at < 0) return out;
            for (Object[] r : rows) if (r[at] != null && !out.contains(r[at])) out.add(r[at]);
            return out;
        }
    }

    private void gather(PlainSelect ps, SqlPlan plan, Map<Integer, Object> parameters, Shards shards,
                        Set<String> loaded) throws SQLException {
        Map<String, Source> sources = new LinkedHashMap<>();
        List<Table> tables = new ArrayList<>();
        tables.add((Table) ps.getFromItem());
        if (ps.getJoins() != null) for (Join j : ps.getJoins()) tables.add((Table) j.getFromItem());
        for (Table t : tables) {
            String table = SqlPlan.upper(t.getName());
            String name = t.getAlias() != null ? SqlPlan.upper(t.getAlias().getName()) : table;
            sources.put(name, new Source(table, name, new ArrayList<>(), new ArrayList<>()));
        }
        List<Expression> conjuncts = SqlPlan.conjuncts(ps.getWhere());
        if (ps.getJoins() != null) for (Join j : ps.getJoins()) for (Expression on : j.getOnExpressions()) conjuncts.addAll(SqlPlan.conjuncts(on));
        // name.column = name.column between two references: semi-join edges
        List<String[]> edges = new ArrayList<>();
        for (Expression c : conjuncts) {
            Set<String> names = new LinkedHashSet<>();
            boolean[] subquery = {false};
            c.accept(new ExpressionVisitorAdapter<Void>() {
                @Override
                public <S> Void visit(Column col, S context) {
                    names.add(resolve(col, sources));
                    return null;
                }

                @Override
                public <S> Void visit(net.sf.jsqlparser.statement.select.ParenthesedSelect select, S context) {
                    subquery[0] = true;
                    return null;
                }
            }, null);
            if (subquery[0] || names.contains(null)) continue; // evaluated in memory only
            if (names.size() == 1) sources.get(names.iterator().next()).own().add(c);
            else if (names.size() == 2 && c instanceof EqualsTo eq && eq.getLeftExpression() instanceof Column l
                    && eq.getRightExpression() instanceof Column r) {
                edges.add(new String[] {resolve(l, sources), SqlPlan.upper(l.getColumnName()), resolve(r, sources),
                        SqlPlan.upper(r.getColumnName())});
            }
        }
        Set<String> done = new LinkedHashSet<>();
        while (done.size() < sources.size()) {
            Source next = pick(sources, done, edges, plan, parameters, shards);
            fetchSource(next, sources, done, edges, parameters, shards, pinnedTo(next, plan, parameters, shards));
            done.add(next.name());
        }
        Connection m = memory();
        for (Source s : sources.values()) {
            for (Rows r : s.fetched()) load(s.table(), r, m);
            loaded.add(s.table());
        }
    }

    /** The next reference to fetch: pinned to shards first, then one with its own conditions, then a joined one. */
    private Source pick(Map<String, Source> sources, Set<String> done, List<String[]> edges, SqlPlan plan,
                        Map<Integer, Object> parameters, Shards shards) {
        Source best = null;
        int bestScore = -1;
        for (Source s : sources.values()) {
            if (done.contains(s.name())) continue;
            int score = 0;
            if (!s.own().isEmpty()) score += 2;
            for (String[] e : edges)
                if ((e[0].equals(s.name()) && done.contains(e[2])) || (e[2].equals(s.name()) && done.contains(e[0]))) score += 3;
            if (sharding.columnOf(s.table()) != null && pinnedTo(s, plan, parameters, shards) != null) score += 4;
            if (score > bestScore) {
                best = s;
                bestScore = score;
            }
        }
        return best;
    }

    /** The shards the plan's keys pin this reference to; null when nothing pins it. */
    private static BitSet pinnedTo(Source s, SqlPlan plan, Map<Integer, Object> parameters, Shards shards) {
        for (SqlPlan.Ref r : plan.refs)
            if (r.name().equals(s.name()) && r.table().equals(s.table()) && !r.keys().isEmpty())
                return Route.pins(r, parameters, shards::shardOf);
        return null;
    }

    private void fetchSource(Source s, Map<String, Source> sources, Set<String> done, List<String[]> edges,
                             Map<Integer, Object> parameters, Shards shards, BitSet pinned) throws SQLException {
        List<String> where = new ArrayList<>();
        List<Object> binds = new ArrayList<>();
        for (Expression c : s.own()) {
            List<Integer> order = new ArrayList<>();
            where.add(numbered(c.toString(), order));
            for (int p : order) binds.add(parameters.get(p));
        }
        String shardColumn = sharding.columnOf(s.table());
        List<Object> shardValues = null;
        for (String[] e : edges) {
            String mine, otherName, otherCol;
            if (e[0].equals(s.name()) && done.contains(e[2])) { mine = e[1]; otherName = e[2]; otherCol = e[3]; }
            else if (e[2].equals(s.name()) && done.contains(e[0])) { mine = e[3]; otherName = e[0]; otherCol = e[1]; }
            else continue;
            List<Object> values = new ArrayList<>();
            for (Rows r : sources.get(otherName).fetched()) for (Object v : r.values(otherCol)) if (!values.contains(v)) values.add(v);
            if (values.isEmpty()) return; // joined to nothing: no row of this reference can be in the result
            if (values.size() > MAX_IN) continue;
            where.add(s.name() + "." + mine + " IN (" + "?, ".repeat(values.size() - 1) + "?)");
            binds.addAll(values);
            if (mine.equals(shardColumn)) shardValues = values;
        }
        BitSet on;
        if (shardColumn == null) {
            on = new BitSet();
            on.set(shards.home());
        } else if (shardValues != null) {
            on = new BitSet();
            for (Object v : shardValues) on.set(shards.shardOf(v));
        } else {
            on = pinned;
            if (on == null) { // conditions on other columns were pushed down: every shard answers for its own rows
                on = new BitSet();
                on.set(0, shards.count());
            }
        }
        String sql = "SELECT " + s.name() + ".* FROM " + s.table() + " " + s.name()
                + (where.isEmpty() ? "" : " WHERE " + String.join(" AND ", where));
        s.fetched().add(fetch(s.table(), sql, binds, on, shards));
    }

    private BitSet everywhereOrHome(String table, Shards shards) {
        BitSet b = new BitSet();
        if (sharding.columnOf(table) == null) b.set(shards.home());
        else b.set(0, shards.count());
        return b;
    }

    private Rows fetch(String table, String sql, List<Object> binds, BitSet on, Shards shards) throws SQLException {
        Set<String> known = columnsOf(table);
        List<String> cols = null;
        List<Object[]> rows = new ArrayList<>();
        for (int shard = on.nextSetBit(0); shard >= 0; shard = on.nextSetBit(shard + 1)) {
            try (PreparedStatement ps = shards.on(shard).prepareStatement(sql)) {
                for (int i = 0; i < binds.size(); i++) ps.setObject(i + 1, binds.get(i));
                try (ResultSet rs = ps.executeQuery()) {
                    ResultSetMetaData md = rs.getMetaData();
                    if (cols == null) {
                        cols = new ArrayList<>();
                        for (int i = 1; i <= md.getColumnCount(); i++) cols.add(SqlPlan.upper(md.getColumnLabel(i)));
                        if (!known.containsAll(cols))
                            throw new SQLException("2pc federation: " + table + " returned columns " + cols
                                    + " that the schema does not have");
                    }
                    while (rs.next()) {
                        Object[] r = new Object[cols.size()];
                        for (int i = 0; i < r.length; i++) r[i] = rs.getObject(i + 1);
                        rows.add(r);
                    }
                }
            }
        }
        return new Rows(cols == null ? List.of() : cols, rows);
    }

    private static void load(String table, Rows rows, Connection m) throws SQLException {
        if (rows.rows().isEmpty()) return;
        String sql = "INSERT OR IGNORE INTO " + table + " (" + String.join(", ", rows.columns()) + ") VALUES ("
                + "?, ".repeat(rows.columns().size() - 1) + "?)";
        try (PreparedStatement ps = m.prepareStatement(sql)) {
            for (Object[] r : rows.rows()) {
                for (int i = 0; i < r.length; i++) ps.setObject(i + 1, r[i]);
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    /** The reference a column belongs to: by qualifier, or the one reference whose table has the column. */
    private String resolve(Column c, Map<String, Source> sources) {
        if (c.getTable() != null && c.getTable().getName() != null) {
            String q = SqlPlan.upper(c.getTable().getName());
            if (sources.containsKey(q)) return q;
            for (Source s : sources.values()) if (s.table().equals(q)) return s.name();
            return null;
        }
        String col = SqlPlan.upper(c.getColumnName());
        String found = null;
        for (Source s : sources.values()) {
            Set<String> cols;
            try {
                cols = columnsOf(s.table());
            } catch (SQLException e) {
                return null;
            }
            if (cols.contains(col)) {
                if (found != null) return null;
                found = s.name();
            }
        }
        return found;
    }

    /** Replaces each {@code ?N} with {@code ?}, telling the parameter numbers in order. */
    static String numbered(String sql, List<Integer> order) {
        Matcher m = NUMBERED.matcher(sql);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            order.add(Integer.parseInt(m.group(1)));
            m.appendReplacement(out, "?");
        }
        m.appendTail(out);
        return out.toString();
    }

    @Override
    public void close() {
        synchronized (memories) {
            for (Connection m : memories) {
                try {
                    m.close();
                } catch (SQLException ignored) {
                    // in-memory: nothing is lost
                }
            }
            memories.clear();
        }
    }
}
