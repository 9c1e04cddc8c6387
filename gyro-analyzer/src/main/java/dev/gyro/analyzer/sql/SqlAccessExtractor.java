package dev.gyro.analyzer.sql;

import dev.gyro.analyzer.model.Condition;
import dev.gyro.analyzer.model.Diagnostic;
import dev.gyro.analyzer.model.Entry;
import dev.gyro.analyzer.model.Equality;
import dev.gyro.analyzer.model.Value;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.expression.CastExpression;
import net.sf.jsqlparser.expression.DateValue;
import net.sf.jsqlparser.expression.DoubleValue;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.ExpressionVisitorAdapter;
import net.sf.jsqlparser.expression.HexValue;
import net.sf.jsqlparser.expression.JdbcNamedParameter;
import net.sf.jsqlparser.expression.JdbcParameter;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.NotExpression;
import net.sf.jsqlparser.expression.NullValue;
import net.sf.jsqlparser.expression.SignedExpression;
import net.sf.jsqlparser.expression.StringValue;
import net.sf.jsqlparser.expression.TimeValue;
import net.sf.jsqlparser.expression.TimestampValue;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.expression.operators.conditional.OrExpression;
import net.sf.jsqlparser.expression.operators.conditional.XorExpression;
import net.sf.jsqlparser.expression.operators.relational.Between;
import net.sf.jsqlparser.expression.operators.relational.EqualsTo;
import net.sf.jsqlparser.expression.operators.relational.ExistsExpression;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.expression.operators.relational.GreaterThan;
import net.sf.jsqlparser.expression.operators.relational.GreaterThanEquals;
import net.sf.jsqlparser.expression.operators.relational.InExpression;
import net.sf.jsqlparser.expression.operators.relational.IsNullExpression;
import net.sf.jsqlparser.expression.operators.relational.LikeExpression;
import net.sf.jsqlparser.expression.operators.relational.MinorThan;
import net.sf.jsqlparser.expression.operators.relational.MinorThanEquals;
import net.sf.jsqlparser.expression.operators.relational.NotEqualsTo;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;
import net.sf.jsqlparser.expression.operators.relational.RegExpMatchOperator;
import net.sf.jsqlparser.expression.operators.relational.SimilarToExpression;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Commit;
import net.sf.jsqlparser.statement.ResetStatement;
import net.sf.jsqlparser.statement.RollbackStatement;
import net.sf.jsqlparser.statement.SavepointStatement;
import net.sf.jsqlparser.statement.SetStatement;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.Statements;
import net.sf.jsqlparser.statement.alter.Alter;
import net.sf.jsqlparser.statement.create.table.CreateTable;
import net.sf.jsqlparser.statement.delete.Delete;
import net.sf.jsqlparser.statement.drop.Drop;
import net.sf.jsqlparser.statement.insert.Insert;
import net.sf.jsqlparser.statement.select.AllColumns;
import net.sf.jsqlparser.statement.select.AllTableColumns;
import net.sf.jsqlparser.statement.select.FromItem;
import net.sf.jsqlparser.statement.select.Join;
import net.sf.jsqlparser.statement.select.LateralSubSelect;
import net.sf.jsqlparser.statement.select.OrderByElement;
import net.sf.jsqlparser.statement.select.ParenthesedFromItem;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.SelectItem;
import net.sf.jsqlparser.statement.select.SetOperationList;
import net.sf.jsqlparser.statement.select.Values;
import net.sf.jsqlparser.statement.select.WithItem;
import net.sf.jsqlparser.statement.truncate.Truncate;
import net.sf.jsqlparser.statement.update.Update;
import net.sf.jsqlparser.statement.update.UpdateSet;
import net.sf.jsqlparser.statement.upsert.Upsert;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns one SQL statement into read set and write set entries (paper, Section VI, "Identifying read and
 * write sets"): SELECT (with joins and sub-selects) gives read entries, INSERT gives a write entry binding
 * the columns to the inserted values, UPDATE a write entry for its SET columns and a read entry for what
 * its WHERE and SET expressions read, DELETE a write entry for whole rows.
 *
 * <p>The condition of an entry is the conjunction of the equalities of the WHERE clause (and of inner
 * join conditions) that bind a column of that table to an input parameter, a constant or, through
 * another column, to a shared unknown. Whatever is not such an equality is dropped from the conjunction,
 * which only widens the rows (docs/decisions/08-conservative-analyzer.md); an OR, a range, LIKE, a function of a column
 * are therefore "any row" unless some other equality of the same conjunction still binds the row.
 *
 * <p>Two deliberate departures from the paper's wording, both on the safe side:
 * <ul>
 *   <li>The attributes a read entry accesses include the columns of its WHERE clause, not only the
 *       returned ones: a write to a column that decides which rows a query selects changes its result.</li>
 *   <li>With {@link WriteGranularity#ROW} (the default), an UPDATE writes the whole row, because the
 *       runtime ships the state update of a global request as row images (docs/decisions/04-row-images.md): an image
 *       carries every column of the row, so it overwrites columns the statement itself did not set.</li>
 * </ul>
 */
public final class SqlAccessExtractor {

    /** What an UPDATE is taken to write: the whole row (row images) or only its SET columns (the paper). */
    public enum WriteGranularity { ROW, ATTRIBUTE }

    /** The read and write entries of one statement, and what could not be read. */
    public record Result(List<Entry> reads, List<Entry> writes, List<Diagnostic> diagnostics) {
        public Result {
            reads = List.copyOf(reads);
            writes = List.copyOf(writes);
            diagnostics = List.copyOf(diagnostics);
        }
    }

    /** A site's SQL, parsed once; {@code error} is set when it could not be parsed. */
    public record Parsed(SqlSite site, List<Statement> statements, String error) {
    }

    private static final Pattern SQLITE_INSERT_OR = Pattern.compile(
            "^(\\s*INSERT)\\s+OR\\s+(IGNORE|ABORT|FAIL|ROLLBACK)\\b", Pattern.CASE_INSENSITIVE);
    private static final Pattern PARSE_POSITION = Pattern.compile("Encountered:?\\s*(.*?), at line (\\d+), column (\\d+)");
    private static final int SQL_SHOWN = 160;
    /** Prefix of the named parameters the Java front-end puts where values were concatenated into SQL. */
    public static final String HOLE = "gyroHole";

    private final Schema schema;
    private final WriteGranularity granularity;

    public SqlAccessExtractor(Schema schema, WriteGranularity granularity) {
        this.schema = schema;
        this.granularity = granularity;
    }

    /**
     * Parses a site's SQL. SQLite's {@code INSERT OR IGNORE} is read as MySQL's {@code INSERT IGNORE}
     * (same meaning); {@code INSERT OR ABORT|FAIL|ROLLBACK} as a plain INSERT.
     */
    public static Parsed parse(SqlSite site) {
        if (site.sql() == null) {
            return new Parsed(site, List.of(), null);
        }
        String sql = Dialects.normalize(site.sql());
        Matcher m = SQLITE_INSERT_OR.matcher(sql);
        if (m.find()) {
            sql = m.replaceFirst(m.group(2).equalsIgnoreCase("IGNORE") ? "$1 IGNORE" : "$1");
        }
        try {
            Statements statements = CCJSqlParserUtil.parseStatements(sql);
            List<Statement> list = new ArrayList<>();
            if (statements != null) {
                for (Statement s : statements) {
                    if (s != null) {
                        list.add(s);
                    }
                }
            }
            if (list.isEmpty()) {
                return new Parsed(site, List.of(), "no SQL statement in \"" + shorten(site.sql()) + "\"");
            }
            return new Parsed(site, list, null);
        } catch (JSQLParserException | RuntimeException | StackOverflowError e) {
            return new Parsed(site, List.of(), "cannot parse SQL \"" + shorten(site.sql()) + "\": " + parseProblem(e));
        }
    }

    /** Learns columns and keys from a declaration (CREATE TABLE, CREATE UNIQUE INDEX, ALTER TABLE); false if none. */
    public static boolean learnDeclaration(Statement statement, Schema schema) {
        if (statement instanceof CreateTable create) {
            schema.learn(create);
        } else if (statement instanceof net.sf.jsqlparser.statement.create.index.CreateIndex create) {
            schema.learn(create);
        } else if (statement instanceof Alter alter) {
            schema.learn(alter);
        } else {
            return false;
        }
        return true;
    }

    /** Learns table columns and keys from a parsed statement (CREATE TABLE, or the columns DML names). */
    public static void learnSchema(Statement statement, Schema schema) {
        if (learnDeclaration(statement, schema)) {
            return;
        } else if (statement instanceof Insert insert && insert.getTable() != null && insert.getColumns() != null) {
            for (Column c : insert.getColumns()) {
                schema.learnColumn(insert.getTable().getName(), c.getColumnName());
            }
        } else if (statement instanceof Update update && update.getTable() != null
                && (update.getJoins() == null || update.getJoins().isEmpty()) && update.getFromItem() == null
                && update.getUpdateSets() != null) {
            for (UpdateSet set : update.getUpdateSets()) {
                for (Column c : set.getColumns()) {
                    schema.learnColumn(update.getTable().getName(), c.getColumnName());
                }
            }
        }
    }

    /** Extracts the entries of a parsed site. */
    public Result extract(Parsed parsed) {
        Extraction x = new Extraction(parsed.site());
        if (parsed.site().sql() == null) {
            x.unknown("SQL text computed at run time (" + parsed.site().unknownReason() + ")");
        } else if (parsed.error() != null) {
            TolerantReading.Reading tolerant = TolerantReading.read(parsed.site());
            if (tolerant != null) {
                x.diagnostics.add(Diagnostic.warning(parsed.site().source(), parsed.error() + "; read tolerantly as "
                        + tolerant.kind() + " of " + String.join(", ", tolerant.tables())
                        + (tolerant.equalities().isEmpty() ? " (any row)" : " where " + tolerant.equalities().stream()
                        .map(Object::toString).collect(java.util.stream.Collectors.joining(" AND ")))
                        + (tolerant.kind().equals("UPDATE") && !tolerant.setColumns().isEmpty()
                        && !tolerant.setColumns().contains(Entry.ALL)
                        ? ", whole rows read, its SET columns " + tolerant.setColumns() + " written" : ", whole rows")));
                TolerantReading.entries(tolerant, parsed.site(), x.shownSql, x.reads, x.writes,
                        set -> x.updatedAttributes(tolerant.target(), set));
            } else {
                x.diagnostics.add(Diagnostic.error(parsed.site().source(), parsed.error()
                        + "; the statement is taken to " + (parsed.site().hint() == SqlSite.ExecutionHint.QUERY
                        ? "read" : "read and write") + " any row of any table"));
                x.unknown("unparsable SQL");
            }
        } else {
            for (Statement statement : parsed.statements()) {
                try {
                    x.statement(statement);
                } catch (RuntimeException e) {
                    x.diagnostics.add(Diagnostic.error(parsed.site().source(), "cannot analyze SQL \""
                            + shorten(parsed.site().sql()) + "\" (" + e + "); taken to access any row"));
                    x.unknown("statement the analysis failed on");
                }
            }
        }
        return new Result(x.reads, x.writes, x.diagnostics);
    }

    static String shorten(String sql) {
        String s = sql.replaceAll("\\s+", " ").trim();
        return s.length() <= SQL_SHOWN ? s : s.substring(0, SQL_SHOWN - 3) + "...";
    }

    private static String parseProblem(Throwable e) {
        Throwable cause = e;
        String best = e.getMessage();
        while (cause != null) {
            if (cause.getMessage() != null && cause.getClass().getSimpleName().equals("ParseException")) {
                best = cause.getMessage();
            }
            if (cause.getCause() == cause) {
                break;
            }
            cause = cause.getCause();
        }
        if (best == null) {
            return e.getClass().getSimpleName();
        }
        Matcher m = PARSE_POSITION.matcher(best);
        if (m.find()) {
            return "unexpected " + m.group(1).trim() + " at line " + m.group(2) + ", column " + m.group(3) + " of the SQL";
        }
        String first = best.lines().findFirst().orElse(best);
        return first.length() > 200 ? first.substring(0, 200) : first;
    }

    // ------------------------------------------------------------------------------------------------
    // One statement's extraction

    /** A table (or derived table) in a FROM clause. Identity matters: a self-join has two references. */
    private static final class TableRef {
        final String alias;
        final String table;
        final Set<String> columns = new TreeSet<>();
        final List<String> widenings = new ArrayList<>();
        boolean all;

        TableRef(String alias, String table) {
            this.alias = alias;
            this.table = table;
        }

        boolean base() {
            return table != null;
        }

        @Override
        public String toString() {
            return table == null ? alias : table;
        }
    }

    /** The tables visible in one query block; the parent is the enclosing block (correlated sub-selects). */
    private static final class Scope {
        final Scope parent;
        final List<TableRef> refs = new ArrayList<>();

        Scope(Scope parent) {
            this.parent = parent;
        }
    }

    /** A column of one table reference: a node of the condition's equivalence classes. */
    private record ColumnNode(TableRef ref, String column) {
        @Override
        public String toString() {
            return ref + "." + column;
        }
    }

    /** Where a column name resolves: one reference (exact) or several candidates. */
    private record Resolution(List<TableRef> candidates, boolean exact, String column) {
    }

    private static final Object NULL_TERM = new Object();
    private static final Object OTHER_TERM = new Object();

    private final class Extraction {
        final SqlSite site;
        final String shownSql;
        final List<Entry> reads = new ArrayList<>();
        final List<Entry> writes = new ArrayList<>();
        final List<Diagnostic> diagnostics = new ArrayList<>();
        final Set<String> cteNames = new HashSet<>();

        Extraction(SqlSite site) {
            this.site = site;
            this.shownSql = site.sql() == null ? "(computed SQL)" : shorten(site.sql());
        }

        void unknown(String why) {
            Condition any = Condition.anyRow(why + " at " + site.source());
            reads.add(new Entry(Entry.ANY_TABLE, Set.of(Entry.ALL), any, site.source(), shownSql));
            if (site.hint() != SqlSite.ExecutionHint.QUERY) {
                writes.add(new Entry(Entry.ANY_TABLE, Set.of(Entry.ALL), any, site.source(), shownSql));
            }
        }

        void statement(Statement statement) {
            if (statement instanceof Select select) {
                readSelect(select, null);
            } else if (statement instanceof Insert insert) {
                insert(insert);
            } else if (statement instanceof Update update) {
                update(update);
            } else if (statement instanceof Delete delete) {
                delete(delete);
            } else if (statement instanceof Upsert upsert) {
                upsert(upsert);
            } else if (statement instanceof Commit || statement instanceof RollbackStatement
                    || statement instanceof SavepointStatement || statement instanceof SetStatement
                    || statement instanceof ResetStatement) {
                return; // transaction control and session settings access no rows
            } else if (statement instanceof Truncate truncate) {
                wholeTable(truncate.getTable(), "TRUNCATE");
            } else if (statement instanceof CreateTable create) {
                wholeTable(create.getTable(), "CREATE TABLE");
            } else if (statement instanceof Drop drop) {
                wholeTable(drop.getName(), "DROP");
            } else if (statement instanceof Alter alter) {
                wholeTable(alter.getTable(), "ALTER TABLE");
            } else {
                diagnostics.add(Diagnostic.warning(site.source(), "statement kind "
                        + statement.getClass().getSimpleName() + " is not modeled: \"" + shownSql
                        + "\" is taken to read and write any row of any table"));
                unknown(statement.getClass().getSimpleName() + " statement");
            }
        }

        void wholeTable(Table table, String what) {
            if (table == null) {
                unknown(what);
                return;
            }
            Condition any = Condition.anyRow(what + " of " + Schema.normalize(table.getName()) + " at " + site.source());
            String t = Schema.normalize(table.getName());
            reads.add(new Entry(t, Set.of(Entry.ALL), any, site.source(), shownSql));
            writes.add(new Entry(t, Set.of(Entry.ALL), any, site.source(), shownSql));
        }

        Value param(JdbcParameter p) {
            Integer index = p.getIndex();
            Value v = index == null ? null : site.positional().get(index);
            return v != null ? v : new Value.Free("placeholder ?" + (index == null ? "" : index)
                    + " not bound to a traceable value at " + site.source());
        }

        Value named(JdbcNamedParameter p) {
            Value v = site.named().get(p.getName());
            return v != null ? v : new Value.Free("named parameter :" + p.getName());
        }

        // ---------------------------------------------------------------------------- SELECT

        void with(List<WithItem<?>> items, Scope outer) {
            if (items == null) {
                return;
            }
            for (WithItem<?> item : items) {
                if (item.getAliasName() != null) {
                    cteNames.add(Schema.normalize(item.getAliasName()));
                }
            }
            for (WithItem<?> item : items) {
                Object body = item.getParenthesedStatement();
                if (body instanceof Select select) {
                    readSelect(select, outer);
                } else if (body instanceof Statement statement) {
                    statement(unwrapParenthesed(statement));
                }
            }
        }

        Statement unwrapParenthesed(Statement s) {
            if (s instanceof net.sf.jsqlparser.statement.insert.ParenthesedInsert pi) {
                return pi.getInsert();
            }
            if (s instanceof net.sf.jsqlparser.statement.update.ParenthesedUpdate pu) {
                return pu.getUpdate();
            }
            if (s instanceof net.sf.jsqlparser.statement.delete.ParenthesedDelete pd) {
                return pd.getDelete();
            }
            return s;
        }

        void readSelect(Select select, Scope outer) {
            readSelect(select, outer, false);
        }

        /**
         * {@code existenceOnly}: the select list is not read, only whether rows exist ({@code EXISTS (SELECT *
         * ...)}): the sub-select reads its WHERE columns and the rows' existence, not every column.
         */
        void readSelect(Select select, Scope outer, boolean existenceOnly) {
            with(select.getWithItemsList(), outer);
            if (select instanceof PlainSelect plain) {
                plainSelect(plain, outer, existenceOnly);
            } else if (select instanceof SetOperationList set) {
                for (Select s : set.getSelects()) {
                    readSelect(s, outer, existenceOnly);
                }
            } else if (select instanceof ParenthesedSelect parenthesed) {
                if (parenthesed.getSelect() != null) {
                    readSelect(parenthesed.getSelect(), outer, existenceOnly);
                }
            } else if (select instanceof Values values) {
                Scope scope = new Scope(outer);
                if (values.getExpressions() != null) {
                    collect(values.getExpressions(), scope);
                }
            } else {
                unknownRead("query form " + select.getClass().getSimpleName());
            }
        }

        void unknownRead(String what) {
            diagnostics.add(Diagnostic.warning(site.source(), what + " is not modeled: \"" + shownSql
                    + "\" is taken to read any row of any table"));
            reads.add(new Entry(Entry.ANY_TABLE, Set.of(Entry.ALL), Condition.anyRow(what + " at " + site.source()),
                    site.source(), shownSql));
        }

        void plainSelect(PlainSelect select, Scope outer, boolean existenceOnly) {
            Scope scope = new Scope(outer);
            List<Join> joins = new ArrayList<>();
            if (select.getFromItem() != null) {
                addFrom(select.getFromItem(), scope, outer, joins);
            }
            if (select.getJoins() != null) {
                for (Join join : select.getJoins()) {
                    addFrom(join.getRightItem(), scope, outer, joins);
                    joins.add(join);
                }
            }
            UnionFind<Object> eq = new UnionFind<>();
            applyConjuncts(select.getWhere(), scope, eq);
            applyJoins(joins, scope, eq);

            if (select.getSelectItems() != null && !existenceOnly) {
                for (SelectItem<?> item : select.getSelectItems()) {
                    if (item.getExpression() != null) {
                        collect(item.getExpression(), scope);
                    }
                }
            }
            collect(select.getWhere(), scope);
            collect(select.getHaving(), scope);
            if (select.getGroupBy() != null && select.getGroupBy().getGroupByExpressionList() != null) {
                collect(select.getGroupBy().getGroupByExpressionList(), scope);
            }
            if (select.getOrderByElements() != null) {
                for (OrderByElement o : select.getOrderByElements()) {
                    collect(o.getExpression(), scope);
                }
            }
            collectJoins(joins, scope);
            for (TableRef ref : scope.refs) {
                if (ref.base()) {
                    reads.add(entry(ref, readAttributes(ref), condition(ref, eq)));
                }
            }
        }

        Entry entry(TableRef ref, Set<String> attributes, Condition condition) {
            return entry(ref, attributes, condition, Entry.Effect.ANY);
        }

        Entry entry(TableRef ref, Set<String> attributes, Condition condition, Entry.Effect effect) {
            return new Entry(ref.table, attributes.isEmpty() ? Set.of(Entry.ALL) : attributes, condition, site.source(),
                    shownSql, effect);
        }

        /** A query reads the columns it mentions and whether its rows exist (the rows it selects). */
        Set<String> readAttributes(TableRef ref) {
            if (ref.all) {
                return Set.of(Entry.ALL);
            }
            Set<String> out = new TreeSet<>(ref.columns);
            out.add(Entry.EXISTENCE);
            return out;
        }

        void addFrom(FromItem item, Scope scope, Scope outer, List<Join> joins) {
            if (item instanceof Table table) {
                String name = Schema.normalize(table.getName());
                String alias = table.getAlias() != null ? Schema.normalize(table.getAlias().getName()) : name;
                boolean cte = table.getSchemaName() == null && cteNames.contains(name);
                scope.refs.add(new TableRef(alias, cte ? null : name));
            } else if (item instanceof LateralSubSelect lateral) {
                readSelect(lateral, scope);
                scope.refs.add(new TableRef(aliasOf(lateral.getAlias()), null));
            } else if (item instanceof ParenthesedSelect sub) {
                readSelect(sub, outer);
                scope.refs.add(new TableRef(aliasOf(sub.getAlias()), null));
            } else if (item instanceof ParenthesedFromItem nested) {
                addFrom(nested.getFromItem(), scope, outer, joins);
                if (nested.getJoins() != null) {
                    for (Join join : nested.getJoins()) {
                        addFrom(join.getRightItem(), scope, outer, joins);
                        joins.add(join);
                    }
                }
            } else if (item != null) {
                // table functions, VALUES lists and the like: no base table is read through them
                Scope inner = new Scope(scope);
                scope.refs.add(new TableRef(aliasOf(item.getAlias()), null));
                if (item instanceof Values values && values.getExpressions() != null) {
                    collect(values.getExpressions(), inner);
                }
            }
        }

        String aliasOf(net.sf.jsqlparser.expression.Alias alias) {
            return alias == null ? "(derived)" : Schema.normalize(alias.getName());
        }

        boolean outerJoin(Join join) {
            return (join.isLeft() || join.isRight() || join.isFull() || join.isOuter()) && !join.isInner();
        }

        void applyJoins(List<Join> joins, Scope scope, UnionFind<Object> eq) {
            for (Join join : joins) {
                if (join.isNatural()) {
                    continue;
                }
                if (!outerJoin(join)) {
                    if (join.getOnExpressions() != null) {
                        for (Expression on : join.getOnExpressions()) {
                            applyConjuncts(on, scope, eq);
                        }
                    }
                    if (join.getUsingColumns() != null) {
                        for (Column c : join.getUsingColumns()) {
                            usingColumn(c, join, scope, eq);
                        }
                    }
                } else if (join.isLeft() && !join.isRight() && !join.isFull() && join.getOnExpressions() != null) {
                    // Rows of the nullable side read through a LEFT JOIN still satisfy the ON conjuncts that
                    // bind its own columns to values; the preserved side is not restricted by ON at all.
                    Set<TableRef> nullable = refsOf(join.getRightItem(), scope);
                    for (Expression on : join.getOnExpressions()) {
                        List<Expression> conjuncts = new ArrayList<>();
                        conjuncts(on, conjuncts);
                        for (Expression c : conjuncts) {
                            Expression u = unwrap(c);
                            if (u instanceof EqualsTo equals) {
                                Object l = term(equals.getLeftExpression(), scope);
                                Object r = term(equals.getRightExpression(), scope);
                                if (l instanceof ColumnNode n && nullable.contains(n.ref()) && r instanceof Value) {
                                    eq.union(n, r);
                                } else if (r instanceof ColumnNode n && nullable.contains(n.ref()) && l instanceof Value) {
                                    eq.union(n, l);
                                }
                            }
                        }
                    }
                }
            }
        }

        Set<TableRef> refsOf(FromItem item, Scope scope) {
            Set<TableRef> out = new HashSet<>();
            String alias = item.getAlias() != null ? Schema.normalize(item.getAlias().getName())
                    : item instanceof Table t ? Schema.normalize(t.getName()) : null;
            for (TableRef ref : scope.refs) {
                if (alias != null && alias.equals(ref.alias)) {
                    out.add(ref);
                }
            }
            return out;
        }

        void usingColumn(Column c, Join join, Scope scope, UnionFind<Object> eq) {
            String column = Schema.normalize(c.getColumnName());
            Set<TableRef> right = refsOf(join.getRightItem(), scope);
            List<TableRef> left = new ArrayList<>();
            for (TableRef ref : scope.refs) {
                if (!right.contains(ref) && ref.base() && !definitelyLacks(ref, column)) {
                    left.add(ref);
                }
            }
            for (TableRef r : right) {
                if (r.base()) {
                    r.columns.add(column);
                    if (left.size() == 1) {
                        eq.union(new ColumnNode(r, column), new ColumnNode(left.get(0), column));
                    }
                }
            }
            for (TableRef l : left) {
                l.columns.add(column);
            }
        }

        void collectJoins(List<Join> joins, Scope scope) {
            for (Join join : joins) {
                if (join.getOnExpressions() != null) {
                    for (Expression on : join.getOnExpressions()) {
                        collect(on, scope);
                    }
                }
            }
        }

        // ---------------------------------------------------------------------------- conditions

        void conjuncts(Expression e, List<Expression> out) {
            Expression u = unwrap(e);
            if (u instanceof AndExpression and) {
                conjuncts(and.getLeftExpression(), out);
                conjuncts(and.getRightExpression(), out);
            } else if (u != null) {
                out.add(u);
            }
        }

        Expression unwrap(Expression e) {
            Expression cur = e;
            while (cur instanceof ParenthesedExpressionList<?> list && list.size() == 1) {
                cur = list.get(0);
            }
            return cur;
        }

        /** Adds the equalities of a conjunction to the classes; records what is dropped (widening). */
        void applyConjuncts(Expression where, Scope scope, UnionFind<Object> eq) {
            if (where == null) {
                return;
            }
            List<Expression> list = new ArrayList<>();
            conjuncts(where, list);
            for (Expression c : list) {
                if (!applyEquality(c, scope, eq)) {
                    widen(c, scope);
                }
            }
        }

        boolean applyEquality(Expression c, Scope scope, UnionFind<Object> eq) {
            Expression left;
            Expression right;
            if (c instanceof EqualsTo equals && !(c instanceof NotEqualsTo)) {
                left = equals.getLeftExpression();
                right = equals.getRightExpression();
            } else if (c instanceof InExpression in && !in.isNot()
                    && unwrapList(in.getRightExpression()) != null) {
                left = in.getLeftExpression();
                right = unwrapList(in.getRightExpression());
            } else {
                return false;
            }
            Object l = term(left, scope);
            Object r = term(right, scope);
            if (l == NULL_TERM || r == NULL_TERM) {
                return true; // "= NULL" is never true: dropping it is safe and no widening worth reporting
            }
            if (l instanceof ColumnNode && r instanceof ColumnNode) {
                eq.union(l, r);
                return true;
            }
            if (l instanceof ColumnNode && r instanceof Value) {
                eq.union(l, r);
                return true;
            }
            if (r instanceof ColumnNode && l instanceof Value) {
                eq.union(r, l);
                return true;
            }
            if (l instanceof ColumnNode && r == OTHER_TERM) {
                eq.union(l, new Value.Free("computed " + shorten(right.toString())));
                return true;
            }
            if (r instanceof ColumnNode && l == OTHER_TERM) {
                eq.union(r, new Value.Free("computed " + shorten(left.toString())));
                return true;
            }
            if (l instanceof Value && r instanceof Value) {
                if (isHole(left) || isHole(right)) {
                    // a value concatenated where a column could stand: it may name any column
                    for (TableRef ref : scope.refs) {
                        ref.all = true;
                    }
                }
                return true; // no column involved (1 = 1, ? = ?): does not select rows by column
            }
            return false;
        }

        /** {@code IN (x)} with a single element is an equality; anything else is not. */
        Expression unwrapList(Expression e) {
            if (e instanceof ParenthesedExpressionList<?> list && list.size() == 1
                    && !(list.get(0) instanceof Select) && !isHole(list.get(0))) {
                return list.get(0); // a concatenated value in IN (...) may be a whole list: not an equality
            }
            return null;
        }

        boolean isHole(Expression e) {
            return unwrap(e) instanceof JdbcNamedParameter p && p.getName() != null && p.getName().startsWith(HOLE);
        }

        void widen(Expression conjunct, Scope scope) {
            String kind = kindOf(conjunct);
            Set<TableRef> affected = new LinkedHashSet<>();
            directColumns(conjunct, scope, affected);
            if (affected.isEmpty()) {
                return; // constrains no column of this block's tables directly (EXISTS, sub-select): nothing widened here
            }
            for (TableRef ref : affected) {
                if (ref.base()) {
                    ref.widenings.add(kind + " `" + shorten(conjunct.toString()) + "` not modeled: rows of "
                            + ref.table + " widened (" + site.source() + ")");
                }
            }
        }

        String kindOf(Expression e) {
            if (e instanceof OrExpression || e instanceof XorExpression) {
                return "OR";
            }
            if (e instanceof LikeExpression || e instanceof SimilarToExpression || e instanceof RegExpMatchOperator) {
                return "LIKE";
            }
            if (e instanceof GreaterThan || e instanceof GreaterThanEquals || e instanceof MinorThan
                    || e instanceof MinorThanEquals || e instanceof Between) {
                return "range";
            }
            if (e instanceof NotEqualsTo) {
                return "inequality";
            }
            if (e instanceof InExpression) {
                return "IN";
            }
            if (e instanceof IsNullExpression) {
                return "IS NULL";
            }
            if (e instanceof NotExpression) {
                return "NOT";
            }
            if (e instanceof ExistsExpression) {
                return "EXISTS";
            }
            if (e instanceof EqualsTo) {
                return "function of a column";
            }
            return "predicate";
        }

        void directColumns(Expression e, Scope scope, Set<TableRef> out) {
            e.accept(new ExpressionVisitorAdapter<Void>() {
                @Override
                public <S> Void visit(Column column, S context) {
                    if (!isBooleanLiteral(column, scope)) {
                        Resolution r = resolve(column, scope);
                        out.addAll(r.candidates());
                    }
                    return null;
                }

                @Override
                public <S> Void visit(ParenthesedSelect select, S context) {
                    return null;
                }

                @Override
                public <S> Void visit(Select select, S context) {
                    return null;
                }
            }, null);
        }

        /** A column node, a value, {@link #NULL_TERM}, or {@link #OTHER_TERM} (an expression not modeled). */
        Object term(Expression e, Scope scope) {
            Expression u = unwrap(e);
            if (u instanceof Column column) {
                if (isBooleanLiteral(column, scope)) {
                    return Value.Constant.number(column.getColumnName().equalsIgnoreCase("TRUE") ? "1" : "0");
                }
                Resolution r = resolve(column, scope);
                return r.exact() ? new ColumnNode(r.candidates().get(0), r.column()) : OTHER_TERM;
            }
            if (u instanceof JdbcParameter p) {
                return param(p);
            }
            if (u instanceof JdbcNamedParameter p) {
                return named(p);
            }
            if (u instanceof LongValue v) {
                return Value.Constant.number(v.getStringValue());
            }
            if (u instanceof DoubleValue v) {
                return Value.Constant.number(v.toString());
            }
            if (u instanceof StringValue v) {
                if (v.getValue().contains(HOLE)) {
                    return new Value.Free("value concatenated into a string literal '" + v.getValue() + "'");
                }
                return Value.Constant.string(v.getValue().replace("''", "'"));
            }
            if (u instanceof DateValue || u instanceof TimestampValue || u instanceof TimeValue || u instanceof HexValue) {
                return Value.Constant.string(u.toString());
            }
            if (u instanceof SignedExpression signed && signed.getExpression() instanceof LongValue
                    || u instanceof SignedExpression s2 && s2.getExpression() instanceof DoubleValue) {
                SignedExpression s = (SignedExpression) u;
                return Value.Constant.number((s.getSign() == '-' ? "-" : "") + s.getExpression().toString());
            }
            if (u instanceof NullValue) {
                return NULL_TERM;
            }
            if (u instanceof CastExpression cast && !(unwrap(cast.getLeftExpression()) instanceof Column)) {
                Object inner = term(cast.getLeftExpression(), scope);
                return inner instanceof Value ? inner : OTHER_TERM;
            }
            if (u instanceof ParenthesedSelect sub) {
                Value v = scalarSubqueryValue(sub, scope);
                return v != null ? v : OTHER_TERM;
            }
            return OTHER_TERM;
        }

        /**
         * {@code (SELECT c FROM T WHERE c = v ...)} yields v or nothing (no row: NULL, which equals nothing),
         * so a column equal to it is equal to v. Only a single-table sub-select whose one selected column the
         * WHERE binds to a placeholder or a constant.
         */
        Value scalarSubqueryValue(ParenthesedSelect sub, Scope scope) {
            if (!(sub.getSelect() instanceof PlainSelect p) || !(p.getFromItem() instanceof Table table)
                    || p.getJoins() != null && !p.getJoins().isEmpty() || p.getSelectItems() == null
                    || p.getSelectItems().size() != 1 || !(p.getSelectItems().get(0).getExpression() instanceof Column c)
                    || p.getWhere() == null) {
                return null;
            }
            String column = Schema.normalize(c.getColumnName());
            List<Expression> list = new ArrayList<>();
            conjuncts(p.getWhere(), list);
            for (Expression conjunct : list) {
                if (conjunct instanceof EqualsTo eq && !(conjunct instanceof NotEqualsTo)) {
                    Expression l = unwrap(eq.getLeftExpression());
                    Expression r = unwrap(eq.getRightExpression());
                    Expression other = sameColumn(l, column, table) ? r : sameColumn(r, column, table) ? l : null;
                    if (other instanceof JdbcParameter || other instanceof JdbcNamedParameter
                            || other instanceof LongValue || other instanceof StringValue) {
                        Object t = term(other, scope);
                        if (t instanceof Value.Param || t instanceof Value.Constant) {
                            return (Value) t;
                        }
                    }
                }
            }
            return null;
        }

        boolean sameColumn(Expression e, String column, Table table) {
            if (!(e instanceof Column c) || !Schema.normalize(c.getColumnName()).equals(column)) {
                return false;
            }
            if (c.getTable() == null || c.getTable().getName() == null) {
                return true;
            }
            String q = Schema.normalize(c.getTable().getName());
            return q.equals(Schema.normalize(table.getName()))
                    || table.getAlias() != null && q.equals(Schema.normalize(table.getAlias().getName()));
        }

        boolean isBooleanLiteral(Column column, Scope scope) {
            if (column.getTable() != null && column.getTable().getName() != null) {
                return false;
            }
            String name = column.getColumnName();
            if (!name.equalsIgnoreCase("TRUE") && !name.equalsIgnoreCase("FALSE")) {
                return false;
            }
            for (Scope s = scope; s != null; s = s.parent) {
                for (TableRef ref : s.refs) {
                    if (ref.base() && schema.hasColumn(ref.table, Schema.normalize(name))) {
                        return false;
                    }
                }
            }
            return true;
        }

        boolean definitelyLacks(TableRef ref, String column) {
            return ref.base() && schema.declared(ref.table) && !schema.hasColumn(ref.table, column);
        }

        /**
         * Resolves a column name. A qualified name resolves to its alias (innermost first). An unqualified
         * name resolves to the one table of the innermost block that may have it; with several, to the one
         * the schema knows has it (the others cannot, or the DBMS would reject the ambiguity); otherwise it
         * stays ambiguous and is attributed to every candidate, its conditions dropped.
         */
        Resolution resolve(Column column, Scope scope) {
            String name = Schema.normalize(column.getColumnName());
            Table qualifier = column.getTable();
            if (qualifier != null && qualifier.getName() != null) {
                String q = Schema.normalize(qualifier.getName());
                for (Scope s = scope; s != null; s = s.parent) {
                    for (TableRef ref : s.refs) {
                        if (q.equals(ref.alias)) {
                            return new Resolution(List.of(ref), true, name);
                        }
                    }
                    for (TableRef ref : s.refs) {
                        if (q.equals(ref.table)) {
                            return new Resolution(List.of(ref), true, name);
                        }
                    }
                }
                return new Resolution(allRefs(scope), false, name);
            }
            List<TableRef> ambiguous = new ArrayList<>();
            for (Scope s = scope; s != null; s = s.parent) {
                List<TableRef> possible = new ArrayList<>();
                List<TableRef> sure = new ArrayList<>();
                for (TableRef ref : s.refs) {
                    if (!definitelyLacks(ref, name)) {
                        possible.add(ref);
                        if (ref.base() && schema.hasColumn(ref.table, name)) {
                            sure.add(ref);
                        }
                    }
                }
                if (possible.isEmpty()) {
                    continue;
                }
                if (!sure.isEmpty()) {
                    // The innermost block whose table surely has the name binds it (valid SQL is not ambiguous).
                    ambiguous.addAll(sure);
                    return new Resolution(ambiguous, ambiguous.size() == 1, name);
                }
                if (possible.size() == 1 && s.parent == null && ambiguous.isEmpty()) {
                    return new Resolution(possible, true, name);
                }
                ambiguous.addAll(possible);
            }
            if (ambiguous.size() == 1) {
                return new Resolution(ambiguous, true, name);
            }
            return new Resolution(ambiguous.isEmpty() ? allRefs(scope) : ambiguous, false, name);
        }

        List<TableRef> allRefs(Scope scope) {
            List<TableRef> out = new ArrayList<>();
            for (Scope s = scope; s != null; s = s.parent) {
                out.addAll(s.refs);
            }
            return out;
        }

        /** Records the columns an expression reads and analyzes the sub-selects it contains. */
        void collect(Expression e, Scope scope) {
            if (e == null) {
                return;
            }
            e.accept(new ExpressionVisitorAdapter<Void>() {
                @Override
                public <S> Void visit(Column column, S context) {
                    if (!isBooleanLiteral(column, scope)) {
                        Resolution r = resolve(column, scope);
                        for (TableRef ref : r.candidates()) {
                            ref.columns.add(r.column());
                        }
                    }
                    return null;
                }

                @Override
                public <S> Void visit(AllColumns all, S context) {
                    if (all instanceof AllTableColumns tableColumns && tableColumns.getTable() != null) {
                        Resolution r = resolve(new Column(tableColumns.getTable(), "*"), scope);
                        for (TableRef ref : r.candidates()) {
                            ref.all = true;
                        }
                    } else {
                        for (TableRef ref : scope.refs) {
                            ref.all = true;
                        }
                    }
                    return null;
                }

                @Override
                public <S> Void visit(AllTableColumns all, S context) {
                    return visit((AllColumns) all, context);
                }

                @Override
                public <S> Void visit(ParenthesedSelect select, S context) {
                    readSelect(select, scope);
                    return null;
                }

                @Override
                public <S> Void visit(Select select, S context) {
                    readSelect(select, scope);
                    return null;
                }

                @Override
                public <S> Void visit(Function function, S context) {
                    // COUNT(*) counts rows: it reads their existence (and the WHERE columns), not every column.
                    if (countsRows(function)) {
                        return null;
                    }
                    return super.visit(function, context);
                }

                @Override
                public <S> Void visit(ExistsExpression exists, S context) {
                    if (exists.getRightExpression() instanceof Select select) {
                        readSelect(select, scope, true);
                        return null;
                    }
                    return super.visit(exists, context);
                }
            }, null);
        }

        boolean countsRows(Function function) {
            if (!"COUNT".equalsIgnoreCase(function.getName()) || function.getParameters() == null
                    || function.getParameters().size() != 1 || function.isDistinct()) {
                return false;
            }
            Object p = function.getParameters().get(0);
            return p instanceof AllColumns && !(p instanceof AllTableColumns) || p instanceof LongValue;
        }

        /** The condition of one table reference: its columns' equivalence classes (Section VI, e.C). */
        Condition condition(TableRef ref, UnionFind<Object> eq) {
            List<Equality> equalities = new ArrayList<>();
            Map<Object, Value.Free> shared = new LinkedHashMap<>();
            for (Object element : eq.elements()) {
                if (!(element instanceof ColumnNode node) || node.ref() != ref) {
                    continue;
                }
                List<Object> members = eq.members(node);
                boolean bound = false;
                for (Object m : members) {
                    if (m instanceof Value.Param || m instanceof Value.Constant) {
                        equalities.add(new Equality(node.column(), (Value) m));
                        bound = true;
                    }
                }
                if (!bound && members.size() > 1) {
                    Value.Free free = shared.computeIfAbsent(eq.find(node), root -> sharedFree(node, members));
                    equalities.add(new Equality(node.column(), free));
                }
            }
            return new Condition(equalities, ref.widenings);
        }

        Value.Free sharedFree(ColumnNode self, List<Object> members) {
            for (Object m : members) {
                if (m instanceof Value.Free free) {
                    return free;
                }
            }
            List<String> others = new ArrayList<>();
            for (Object m : members) {
                if (!m.equals(self)) {
                    others.add(m.toString());
                }
            }
            return new Value.Free("equal to " + String.join(", ", others));
        }

        // ---------------------------------------------------------------------------- INSERT, UPSERT

        /** How an INSERT treats an existing row with the same key. */
        private enum OnDuplicate { FAIL, UPDATE, IGNORE, REPLACE }

        void insert(Insert insert) {
            with(insert.getWithItemsList(), null);
            List<String> columns = insert.getColumns() == null ? null
                    : insert.getColumns().stream().map(c -> Schema.normalize(c.getColumnName())).toList();
            OnDuplicate mode = OnDuplicate.FAIL;
            List<String> conflictTarget = null;
            List<String> updatedOnDuplicate = new ArrayList<>();
            if (insert.isUseDuplicate() || insert.getDuplicateUpdateSets() != null) {
                mode = OnDuplicate.UPDATE;
                updatedOnDuplicate.addAll(setColumns(insert.getDuplicateUpdateSets()));
            } else if (insert.getConflictAction() != null) {
                mode = insert.getConflictAction().getUpdateSets() != null ? OnDuplicate.UPDATE : OnDuplicate.IGNORE;
                if (insert.getConflictAction().getUpdateSets() != null) {
                    updatedOnDuplicate.addAll(setColumns(insert.getConflictAction().getUpdateSets()));
                }
                if (insert.getConflictTarget() != null && insert.getConflictTarget().getIndexColumnNames() != null
                        && !insert.getConflictTarget().getIndexColumnNames().isEmpty()) {
                    conflictTarget = insert.getConflictTarget().getIndexColumnNames().stream()
                            .map(Schema::normalize).toList();
                }
            } else if (insert.isModifierIgnore()) {
                mode = OnDuplicate.IGNORE;
            }
            if (insert.getSetUpdateSets() != null && !insert.getSetUpdateSets().isEmpty()) {
                List<String> cols = new ArrayList<>();
                List<Expression> values = new ArrayList<>();
                for (UpdateSet set : insert.getSetUpdateSets()) {
                    for (int i = 0; i < set.getColumns().size(); i++) {
                        cols.add(Schema.normalize(set.getColumn(i).getColumnName()));
                        values.add(i < set.getValues().size() ? set.getValue(i) : null);
                    }
                }
                rowsWritten(insert.getTable(), cols, List.of(values), mode, conflictTarget, updatedOnDuplicate);
                return;
            }
            Values values = insert.getSelect() instanceof Values v ? v : null;
            if (values != null) {
                rowsWritten(insert.getTable(), columns, rows(values), mode, conflictTarget, updatedOnDuplicate);
            } else if (insert.getSelect() != null) {
                readSelect(insert.getSelect(), null);
                rowsWritten(insert.getTable(), columns, null, mode, conflictTarget, updatedOnDuplicate);
            } else {
                rowsWritten(insert.getTable(), columns, null, mode, conflictTarget, updatedOnDuplicate);
            }
        }

        void upsert(Upsert upsert) {
            List<String> columns = upsert.getColumns() == null ? null
                    : upsert.getColumns().stream().map(c -> Schema.normalize(c.getColumnName())).toList();
            List<String> updated = setColumns(upsert.getDuplicateUpdateSets());
            if (upsert.getUpdateSets() != null && !upsert.getUpdateSets().isEmpty()) {
                List<String> cols = new ArrayList<>();
                List<Expression> values = new ArrayList<>();
                for (UpdateSet set : upsert.getUpdateSets()) {
                    for (int i = 0; i < set.getColumns().size(); i++) {
                        cols.add(Schema.normalize(set.getColumn(i).getColumnName()));
                        values.add(i < set.getValues().size() ? set.getValue(i) : null);
                    }
                }
                rowsWritten(upsert.getTable(), cols, List.of(values), OnDuplicate.REPLACE, null, updated);
            } else if (upsert.getSelect() instanceof Values values) {
                rowsWritten(upsert.getTable(), columns, rows(values), OnDuplicate.REPLACE, null, updated);
            } else {
                if (upsert.getSelect() != null) {
                    readSelect(upsert.getSelect(), null);
                }
                rowsWritten(upsert.getTable(), columns, null, OnDuplicate.REPLACE, null, updated);
            }
        }

        List<String> setColumns(List<UpdateSet> sets) {
            List<String> out = new ArrayList<>();
            if (sets != null) {
                for (UpdateSet set : sets) {
                    for (Column c : set.getColumns()) {
                        out.add(Schema.normalize(c.getColumnName()));
                    }
                    // values of ON DUPLICATE KEY UPDATE may contain sub-selects
                    if (set.getValues() != null) {
                        collect(set.getValues(), new Scope(null));
                    }
                }
            }
            return out;
        }

        /** VALUES (a, b) is one row; VALUES (a, b), (c, d) is a list of rows. */
        List<List<Expression>> rows(Values values) {
            List<List<Expression>> rows = new ArrayList<>();
            ExpressionList<?> list = values.getExpressions();
            if (list == null) {
                return rows;
            }
            boolean multi = !(list instanceof ParenthesedExpressionList) && !list.isEmpty();
            if (multi) {
                for (Object e : list) {
                    if (!(e instanceof ExpressionList)) {
                        multi = false;
                        break;
                    }
                }
            }
            if (multi) {
                for (Object e : list) {
                    List<Expression> row = new ArrayList<>();
                    for (Object v : (ExpressionList<?>) e) {
                        row.add((Expression) v);
                    }
                    rows.add(row);
                }
            } else {
                List<Expression> row = new ArrayList<>();
                for (Object v : list) {
                    row.add((Expression) v);
                }
                rows.add(row);
            }
            return rows;
        }

        /**
         * The write entries of rows inserted: one per row, binding each listed column to its value; plus,
         * where the table's unique keys are known, the rows an INSERT reads to check for a duplicate key
         * (and, on duplicate-key update or replace, writes).
         */
        void rowsWritten(Table table, List<String> columns, List<List<Expression>> rows, OnDuplicate mode,
                         List<String> conflictTarget, List<String> updatedOnDuplicate) {
            String t = Schema.normalize(table.getName());
            List<String> cols = columns;
            if (cols == null && schema.declared(t)) {
                cols = schema.declaredColumns(t);
            }
            if (rows == null || cols == null) {
                String why = rows == null ? "INSERT ... SELECT into " + t + ": inserted rows not modeled"
                        : "INSERT into " + t + " without a column list and no CREATE TABLE seen";
                Condition any = Condition.anyRow(why + " (" + site.source() + ")");
                writes.add(new Entry(t, Set.of(Entry.ALL), any, site.source(), shownSql));
                reads.add(new Entry(t, Set.of(Entry.ALL), any, site.source(), shownSql));
                return;
            }
            Scope scope = new Scope(null);
            for (List<Expression> row : rows) {
                Map<String, Value> values = new LinkedHashMap<>();
                // fewer values than columns: a value concatenated into the text stands for several ("VALUES (" + csv
                // + ")"), so no column's value is known
                boolean shapeKnown = row.size() == cols.size();
                for (int i = 0; i < cols.size() && i < row.size(); i++) {
                    Expression e = row.get(i);
                    Value v;
                    Object term = e == null ? OTHER_TERM : term(e, scope);
                    if (e != null) {
                        collect(e, scope); // a scalar sub-select giving the value is read all the same
                    }
                    if (!shapeKnown) {
                        v = new Value.Free("VALUES of " + row.size() + " for " + cols.size() + " columns");
                    } else if (term instanceof Value value) {
                        v = value;
                    } else {
                        v = new Value.Free(term == NULL_TERM ? "NULL" : "computed " + shorten(String.valueOf(e)));
                    }
                    values.put(cols.get(i), v);
                }
                List<String> notes = new ArrayList<>();
                List<Equality> full = equalities(values, values.keySet());
                List<List<String>> keys = applicableKeys(t, values.keySet());
                // A plain INSERT (or one that ignores a duplicate) only ever adds a row that did not exist, and its
                // duplicate-key check reads only whether a row exists at its key, not the row's other columns.
                boolean creates = mode == OnDuplicate.FAIL || mode == OnDuplicate.IGNORE;
                Entry.Effect effect = creates ? Entry.Effect.CREATE : Entry.Effect.ANY;
                if (conflictTarget != null) {
                    // ON CONFLICT (cols): the row written is the new one or the one agreeing on the target
                    List<Equality> target = equalities(values, conflictTarget);
                    writes.add(entry(t, Set.of(Entry.ALL), target, notes, effect));
                    reads.add(entry(t, creates ? existenceAt(conflictTarget) : Set.of(Entry.ALL), target, notes, Entry.Effect.ANY));
                    continue;
                }
                writes.add(entry(t, Set.of(Entry.ALL), full, notes, effect));
                if (!schema.declared(t)) {
                    if (mode == OnDuplicate.UPDATE) {
                        Set<String> kept = new LinkedHashSet<>(values.keySet());
                        kept.removeAll(updatedOnDuplicate);
                        List<String> why = List.of("unique keys of " + t + " unknown (no CREATE TABLE seen): the row "
                                + "updated on a duplicate key is assumed to agree on the columns it does not update ("
                                + site.source() + ")");
                        writes.add(entry(t, equalities(values, kept), why));
                    }
                    continue; // a write-write conflict on the inserted row stands for the duplicate-key check
                }
                for (List<String> key : keys) {
                    List<Equality> onKey = equalities(values, key);
                    reads.add(entry(t, creates ? existenceAt(key) : Set.of(Entry.ALL), onKey, notes, Entry.Effect.ANY));
                    if (!creates) {
                        writes.add(entry(t, onKey, notes));
                    }
                }
            }
        }

        /** What a duplicate-key check reads: whether a row exists with these key columns' values. */
        Set<String> existenceAt(List<String> key) {
            Set<String> out = new TreeSet<>(key);
            out.add(Entry.EXISTENCE);
            return out;
        }

        Entry entry(String table, List<Equality> equalities, List<String> widenings) {
            return entry(table, Set.of(Entry.ALL), equalities, widenings, Entry.Effect.ANY);
        }

        Entry entry(String table, Set<String> attributes, List<Equality> equalities, List<String> widenings,
                    Entry.Effect effect) {
            return new Entry(table, attributes, new Condition(equalities, widenings), site.source(), shownSql, effect);
        }

        List<Equality> equalities(Map<String, Value> values, java.util.Collection<String> columns) {
            List<Equality> out = new ArrayList<>();
            for (String c : columns) {
                Value v = values.get(c);
                if (v != null) {
                    out.add(new Equality(c, v));
                }
            }
            return out;
        }

        /** The unique keys whose columns the INSERT all supplies (an omitted, generated key cannot collide). */
        List<List<String>> applicableKeys(String table, Set<String> supplied) {
            List<List<String>> out = new ArrayList<>();
            for (List<String> key : schema.uniqueKeys(table)) {
                if (supplied.containsAll(key)) {
                    out.add(key);
                }
            }
            return out;
        }

        // ---------------------------------------------------------------------------- UPDATE, DELETE

        void update(Update update) {
            with(update.getWithItemsList(), null);
            Scope scope = new Scope(null);
            List<Join> joins = new ArrayList<>();
            addFrom(update.getTable(), scope, null, joins);
            TableRef target = scope.refs.get(0);
            if (update.getStartJoins() != null) {
                for (Join join : update.getStartJoins()) {
                    addFrom(join.getRightItem(), scope, null, joins);
                    joins.add(join);
                }
            }
            if (update.getFromItem() != null) {
                addFrom(update.getFromItem(), scope, null, joins);
            }
            if (update.getJoins() != null) {
                for (Join join : update.getJoins()) {
                    addFrom(join.getRightItem(), scope, null, joins);
                    joins.add(join);
                }
            }
            UnionFind<Object> eq = new UnionFind<>();
            applyConjuncts(update.getWhere(), scope, eq);
            applyJoins(joins, scope, eq);

            // SET columns per target table, and the new values of those that are plain values
            Map<TableRef, Map<String, Value>> assigned = new LinkedHashMap<>();
            if (update.getUpdateSets() != null) {
                for (UpdateSet set : update.getUpdateSets()) {
                    List<Column> cols = set.getColumns();
                    for (int i = 0; i < cols.size(); i++) {
                        Column c = cols.get(i);
                        TableRef ref = target;
                        if (scope.refs.size() > 1 || c.getTable() != null && c.getTable().getName() != null) {
                            Resolution r = resolve(c, scope);
                            if (r.exact()) {
                                ref = r.candidates().get(0);
                            }
                        }
                        Expression valueExpr = set.getValues() != null && set.getValues().size() == cols.size()
                                ? set.getValue(i) : null;
                        Object term = valueExpr == null ? OTHER_TERM : term(valueExpr, scope);
                        Value v = term instanceof Value value ? value
                                : new Value.Free("computed " + (valueExpr == null ? "value" : shorten(valueExpr.toString())));
                        assigned.computeIfAbsent(ref, k -> new LinkedHashMap<>()).put(Schema.normalize(c.getColumnName()), v);
                    }
                    if (set.getValues() != null) {
                        collect(set.getValues(), scope);
                    }
                }
            }
            collect(update.getWhere(), scope);
            collectJoins(joins, scope);
            if (update.getOrderByElements() != null) {
                for (OrderByElement o : update.getOrderByElements()) {
                    collect(o.getExpression(), scope);
                }
            }
            for (TableRef ref : scope.refs) {
                if (!ref.base()) {
                    continue;
                }
                Condition before = condition(ref, eq);
                // An UPDATE reads the rows its WHERE selects (it returns how many) and what its SET expressions read.
                reads.add(entry(ref, readAttributes(ref), before));
                Map<String, Value> set = assigned.get(ref);
                if (set == null) {
                    continue;
                }
                Set<String> attributes = updatedAttributes(ref.table, set.keySet());
                Entry.Effect effect = attributes.contains(Entry.ALL) || attributes.contains(Entry.EXISTENCE)
                        ? Entry.Effect.ANY : Entry.Effect.CHANGE;
                writes.add(entry(ref, attributes, before, effect));
                boolean movesRow = before.equalities().stream().anyMatch(e -> set.containsKey(e.column()));
                if (movesRow) {
                    // The row after the update no longer satisfies the equalities on the columns it sets.
                    List<Equality> after = new ArrayList<>();
                    for (Equality e : before.equalities()) {
                        if (!set.containsKey(e.column())) {
                            after.add(e);
                        }
                    }
                    for (Map.Entry<String, Value> e : set.entrySet()) {
                        after.add(new Equality(e.getKey(), e.getValue()));
                    }
                    writes.add(entry(ref, attributes, new Condition(after, before.widenings()), effect));
                }
            }
        }

        /**
         * What an UPDATE setting {@code set} writes. It keeps its rows where they are, so it never changes
         * their existence, unless it sets a column of a unique key (the row leaves one key for another) or
         * the table's keys are unknown (no CREATE TABLE, or no key declared: any column may be one). By rows
         * ({@link WriteGranularity#ROW}), the state update is a row image (docs/decisions/04-row-images.md), so
         * it also writes what the image carries ({@link Entry#IMAGE}, resolved once all statements are seen).
         */
        Set<String> updatedAttributes(String table, Set<String> set) {
            // no key seen at all may be a key declared where the analysis did not look: any column may be one
            boolean movesRow = !schema.declared(table) || schema.uniqueKeys(table).isEmpty()
                    || schema.uniqueKeys(table).stream().anyMatch(key -> key.stream().anyMatch(set::contains));
            if (granularity == WriteGranularity.ROW) {
                if (movesRow) {
                    return Set.of(Entry.ALL);
                }
                Set<String> out = new TreeSet<>(set);
                out.add(Entry.IMAGE);
                return out;
            }
            Set<String> out = new TreeSet<>(set);
            if (movesRow) {
                out.add(Entry.EXISTENCE);
            }
            return out;
        }

        void delete(Delete delete) {
            with(delete.getWithItemsList(), null);
            Scope scope = new Scope(null);
            List<Join> joins = new ArrayList<>();
            if (delete.getTable() != null) {
                addFrom(delete.getTable(), scope, null, joins);
            }
            if (delete.getUsingFromItemList() != null) {
                for (FromItem item : delete.getUsingFromItemList()) {
                    addFrom(item, scope, null, joins);
                }
            }
            if (delete.getJoins() != null) {
                for (Join join : delete.getJoins()) {
                    addFrom(join.getRightItem(), scope, null, joins);
                    joins.add(join);
                }
            }
            List<TableRef> targets = new ArrayList<>();
            if (delete.getTables() != null && !delete.getTables().isEmpty()) {
                for (Table t : delete.getTables()) {
                    Resolution r = resolve(new Column(t, "*"), scope);
                    targets.addAll(r.candidates());
                }
            } else if (!scope.refs.isEmpty()) {
                targets.add(scope.refs.get(0));
            }
            UnionFind<Object> eq = new UnionFind<>();
            applyConjuncts(delete.getWhere(), scope, eq);
            applyJoins(joins, scope, eq);
            collect(delete.getWhere(), scope);
            collectJoins(joins, scope);
            for (TableRef ref : scope.refs) {
                if (!ref.base()) {
                    continue;
                }
                Condition condition = condition(ref, eq);
                reads.add(entry(ref, readAttributes(ref), condition));
                if (targets.contains(ref)) {
                    writes.add(entry(ref, Set.of(Entry.ALL), condition, Entry.Effect.DELETE));
                }
            }
        }
    }

}
