package dev.gyro.runtime.db;

import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.delete.Delete;
import net.sf.jsqlparser.statement.insert.Insert;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.update.Update;
import net.sf.jsqlparser.statement.update.UpdateSet;
import net.sf.jsqlparser.statement.upsert.Upsert;
import net.sf.jsqlparser.statement.upsert.UpsertType;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What one SQL string does, as far as write capture cares (docs/decisions/04-row-images.md): it only reads, or it
 * writes rows of one table (INSERT, REPLACE, UPDATE, DELETE; {@code kind} is null for reads), with which conflict
 * resolution and which SET columns. A write with a RETURNING clause of its own that names columns (or {@code *}) is
 * held without it ({@code sql}), the columns in {@code returning}: the capture runs it returning every column, as it
 * runs every write, and answers the application's columns from the rows it wrote. Statements are recognised with JSqlParser after {@link SqlText} has rewritten the
 * SQLite spellings it does not read. Results are cached per SQL string: an application has a few hundred distinct
 * statements at most.
 *
 * <p>A statement that is neither clearly a read nor a write of this shape is refused with an
 * {@link SQLException} naming it: writes the capture does not see would silently diverge the instances.
 */
record WriteStatement(WriteKind kind, String sql, String schema, String table, String conflict, List<String> setColumns,
                      List<String> returning) {

    /** A statement without a RETURNING clause of its own. */
    WriteStatement(WriteKind kind, String sql, String schema, String table, String conflict, List<String> setColumns) {
        this(kind, sql, schema, table, conflict, setColumns, null);
    }

    private static final Set<String> CONFLICT_ACTIONS = Set.of("ROLLBACK", "ABORT", "REPLACE", "FAIL", "IGNORE");
    /** Statements whose first word makes them reads on every supported DBMS, even when JSqlParser cannot parse them. */
    private static final Set<String> READ_WORDS = Set.of("SELECT", "VALUES", "EXPLAIN");
    private static final int CACHE_LIMIT = 4096;
    private static final ConcurrentHashMap<String, Object> CACHE = new ConcurrentHashMap<>();

    boolean isWrite() {
        return kind != null;
    }

    /** True for writes that resolve conflicts by deleting the conflicting rows (REPLACE, OR REPLACE). */
    boolean replaces() {
        return "REPLACE".equals(conflict);
    }

    /**
     * Classifies {@code sql}.
     *
     * @throws SQLException (SQLState 0A000) when the statement cannot be captured: not understood, several
     *                      statements, DDL or another non-DML statement, a write with its own RETURNING clause,
     *                      or a multi-table write
     */
    static WriteStatement classify(String sql) throws SQLException {
        Object cached = CACHE.get(sql);
        if (cached == null) {
            try {
                cached = analyze(sql);
            } catch (SQLException e) {
                cached = e.getMessage();
            }
            if (CACHE.size() >= CACHE_LIMIT) CACHE.clear();
            CACHE.put(sql, cached);
        }
        if (cached instanceof WriteStatement w) return w;
        throw refused((String) cached);
    }

    static SQLException refused(String message) {
        return new SQLException(message, "0A000");
    }

    private static WriteStatement analyze(String sql) throws SQLException {
        if (sql == null) throw refused("SQL statement is null");
        List<SqlText.Token> tokens;
        try {
            tokens = SqlText.singleStatement(sql);
        } catch (IllegalArgumentException e) {
            throw refused("cannot capture writes of [" + abbreviate(sql) + "]: " + e.getMessage());
        }
        String first = tokens.get(0).type() == SqlText.Type.WORD ? tokens.get(0).upper() : "";
        if (first.equals("PRAGMA") && isPragmaQuery(tokens)) {
            return new WriteStatement(null, sql, null, null, null, List.of());
        }

        // Rewrite what JSqlParser does not read: "INSERT OR <action>", "UPDATE OR <action>", [bracketed] names.
        StringBuilder parseText = new StringBuilder();
        String conflict = null;
        int copied = 0;
        for (int i = 0; i < tokens.size(); i++) {
            SqlText.Token t = tokens.get(i);
            if ((t.isWord("INSERT") || t.isWord("UPDATE")) && i + 2 < tokens.size() && tokens.get(i + 1).isWord("OR")
                    && tokens.get(i + 2).type() == SqlText.Type.WORD
                    && CONFLICT_ACTIONS.contains(tokens.get(i + 2).upper())) {
                conflict = tokens.get(i + 2).upper();
                parseText.append(sql, copied, t.end());
                copied = tokens.get(i + 2).end();
                i += 2;
            } else if (t.type() == SqlText.Type.QUOTED && t.text().startsWith("[")) {
                parseText.append(sql, copied, t.start()).append(SqlText.doubleQuote(SqlText.unquote(t.text())));
                copied = t.end();
            }
        }
        parseText.append(sql, copied, tokens.get(tokens.size() - 1).end());

        Statement st;
        try {
            st = CCJSqlParserUtil.parse(parseText.toString());
        } catch (JSQLParserException | RuntimeException e) {
            if (READ_WORDS.contains(first)) {
                // SELECT, VALUES and EXPLAIN cannot write on any supported DBMS: let the DBMS judge the syntax.
                return new WriteStatement(null, sql, null, null, null, List.of());
            }
            throw refused("cannot capture writes of [" + abbreviate(sql) + "]: the statement is not understood ("
                    + firstLine(e.getCause() != null ? e.getCause().getMessage() : e.getMessage()) + "); a global request may only use SELECT, INSERT, REPLACE, UPDATE"
                    + " and DELETE statements that name their table");
        }

        if (st instanceof Select || st instanceof net.sf.jsqlparser.statement.select.Values) {
            return new WriteStatement(null, sql, null, null, null, List.of());
        }
        List<String> returning = null;
        String written = sql;
        net.sf.jsqlparser.statement.ReturningClause own = st instanceof Insert i ? i.getReturningClause()
                : st instanceof Update u ? u.getReturningClause() : st instanceof Delete d ? d.getReturningClause() : null;
        if (own != null) {
            returning = returningColumns(own, sql);
            written = withoutReturning(tokens, sql);
        }
        if (st instanceof Insert ins) {
            List<String> sets = new ArrayList<>();
            if (ins.getConflictAction() != null && ins.getConflictAction().getUpdateSets() != null)
                sets.addAll(columns(ins.getConflictAction().getUpdateSets()));
            if (ins.getDuplicateUpdateSets() != null) sets.addAll(columns(ins.getDuplicateUpdateSets()));
            return new WriteStatement(WriteKind.INSERT, written, schema(ins.getTable()), name(ins.getTable()), conflict,
                    sets, returning);
        }
        if (st instanceof Upsert ups) {
            UpsertType type = ups.getUpsertType();
            String c = conflict;
            if (type == UpsertType.REPLACE || type == UpsertType.INSERT_OR_REPLACE || type == UpsertType.REPLACE_SET)
                c = "REPLACE";
            else if (type != null && type.name().startsWith("INSERT_OR_"))
                c = type.name().substring("INSERT_OR_".length());
            List<String> sets = new ArrayList<>();
            if (ups.getDuplicateUpdateSets() != null) sets.addAll(columns(ups.getDuplicateUpdateSets()));
            return new WriteStatement(WriteKind.INSERT, sql, schema(ups.getTable()), name(ups.getTable()), c, sets);
        }
        if (st instanceof Update upd) {
            if (upd.getStartJoins() != null && !upd.getStartJoins().isEmpty() || upd.getTable() == null)
                throw refused("cannot capture writes of [" + abbreviate(sql) + "]: multi-table UPDATE");
            return new WriteStatement(WriteKind.UPDATE, written, schema(upd.getTable()), name(upd.getTable()), conflict,
                    columns(upd.getUpdateSets()), returning);
        }
        if (st instanceof Delete del) {
            if ((del.getTables() != null && !del.getTables().isEmpty()) || del.getTable() == null
                    || (del.getJoins() != null && !del.getJoins().isEmpty()))
                throw refused("cannot capture writes of [" + abbreviate(sql) + "]: multi-table DELETE");
            return new WriteStatement(WriteKind.DELETE, written, schema(del.getTable()), name(del.getTable()), conflict,
                    List.of(), returning);
        }
        throw refused("statement not allowed in a captured (global) transaction: [" + abbreviate(sql) + "] is a "
                + st.getClass().getSimpleName() + "; only SELECT, INSERT, REPLACE, UPDATE and DELETE are captured"
                + " (DDL, PRAGMA assignments, transaction control and the like would not reach the other instances)");
    }

    /** Pragmas that only report, even when given an argument ({@code PRAGMA table_info(t)}). */
    private static final Set<String> QUERY_PRAGMAS = Set.of("table_info", "table_xinfo", "table_list", "index_list",
            "index_info", "index_xinfo", "foreign_key_list", "foreign_key_check", "integrity_check", "quick_check",
            "database_list", "collation_list", "function_list", "module_list", "pragma_list", "compile_options");

    /**
     * {@code PRAGMA [schema.]name} reads a setting; {@code PRAGMA name = v} and {@code PRAGMA name(v)} set it,
     * except for the pragmas that take their argument as the thing to report on.
     */
    private static boolean isPragmaQuery(List<SqlText.Token> tokens) {
        if (tokens.stream().anyMatch(t -> t.isPunct('='))) return false;
        int paren = -1;
        for (int i = 0; i < tokens.size(); i++) if (tokens.get(i).isPunct('(')) { paren = i; break; }
        if (paren < 0) return true;
        SqlText.Token name = tokens.get(paren - 1);
        return QUERY_PRAGMAS.contains(SqlText.unquote(name.text()).toLowerCase(Locale.ROOT));
    }

    /**
     * The columns a write's own RETURNING clause names ({@code *} for all), refused when it computes anything else:
     * the capture can answer columns of the rows written, not expressions over them.
     */
    private static List<String> returningColumns(net.sf.jsqlparser.statement.ReturningClause own, String sql)
            throws SQLException {
        List<String> out = new ArrayList<>();
        boolean plain = own.getDataItems() == null || own.getDataItems().isEmpty();
        for (net.sf.jsqlparser.statement.select.SelectItem<?> item : own) {
            if (!plain || item.getAlias() != null) break;
            if (item.getExpression() instanceof net.sf.jsqlparser.statement.select.AllColumns) out.add("*");
            else if (item.getExpression() instanceof Column c) out.add(SqlText.unquote(c.getColumnName()));
            else break;
        }
        if (out.size() != own.size() || !plain)
            throw refused("cannot capture writes of [" + abbreviate(sql) + "]: its RETURNING clause computes more than"
                    + " columns of the written rows (an expression, an alias or INTO); return the columns and compute"
                    + " in the application, or use getGeneratedKeys()");
        return List.copyOf(out);
    }

    /** {@code sql} up to its own top-level RETURNING (or RETURN) clause, which the capture replaces. */
    private static String withoutReturning(List<SqlText.Token> tokens, String sql) throws SQLException {
        int depth = 0;
        int at = -1;
        for (SqlText.Token t : tokens) {
            if (t.isPunct('(')) depth++;
            else if (t.isPunct(')')) depth--;
            else if (depth == 0 && (t.isWord("RETURNING") || t.isWord("RETURN"))) at = t.start();
        }
        if (at < 0) throw refused("cannot capture writes of [" + abbreviate(sql) + "]: its RETURNING clause is not found");
        return sql.substring(0, at).strip();
    }

    private static List<String> columns(List<UpdateSet> sets) {
        List<String> out = new ArrayList<>();
        if (sets == null) return out;
        for (UpdateSet s : sets)
            for (Column c : s.getColumns()) out.add(SqlText.unquote(c.getColumnName()));
        return out;
    }

    private static String name(Table t) {
        return SqlText.unquote(t.getName());
    }

    private static String schema(Table t) {
        String s = t.getSchemaName();
        return s == null ? null : SqlText.unquote(s);
    }

    static String abbreviate(String sql) {
        if (sql == null) return "null";
        String oneLine = sql.strip().replaceAll("\\s+", " ");
        return oneLine.length() <= 200 ? oneLine : oneLine.substring(0, 197) + "...";
    }

    private static String firstLine(String s) {
        if (s == null) return "no detail";
        return s.lines().findFirst().orElse(s).strip();
    }

    String describe() {
        return (kind == null ? "read" : kind.name().toLowerCase(Locale.ROOT)) + " on " + table + " [" + abbreviate(sql) + "]";
    }
}
