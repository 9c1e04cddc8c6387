package dev.gyro.analyzer.sql;

import dev.gyro.analyzer.model.Condition;
import dev.gyro.analyzer.model.Entry;
import dev.gyro.analyzer.model.Equality;
import dev.gyro.analyzer.model.Value;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The reading of a statement the parser cannot read, keeping only what is certain: its kind (the first
 * word), the tables it names (after FROM, JOIN, INTO, UPDATE), and, for a statement on one table whose
 * WHERE is a plain conjunction, the equalities of a column with a placeholder or a literal. Everything else
 * is widened: whole rows are read and written, and a write is any row of its table unless the equalities
 * are certain and the statement does not set their columns. A statement of any other kind, or one naming
 * no table, stays "any row of any table".
 */
final class TolerantReading {
    private static final Pattern TABLE_AFTER = Pattern.compile(
            "\\b(?:JOIN|INTO|UPDATE)\\s+([A-Za-z_][\\w$]*(?:\\.[A-Za-z_][\\w$]*)?)", Pattern.CASE_INSENSITIVE);
    private static final Pattern FROM = Pattern.compile("\\bFROM\\b", Pattern.CASE_INSENSITIVE);
    private static final Pattern CLAUSE_END = Pattern.compile(
            "\\b(?:WHERE|GROUP|ORDER|HAVING|LIMIT|UNION|FETCH|FOR|WITH|JOIN|INNER|LEFT|RIGHT|FULL|CROSS|ON|SET|VALUES)\\b|[;()]",
            Pattern.CASE_INSENSITIVE);
    private static final Pattern EQUALITY = Pattern.compile(
            "^\\s*(?:[A-Za-z_][\\w$]*\\.)?([A-Za-z_][\\w$]*)\\s*=\\s*(\\?|-?\\d+(?:\\.\\d+)?|'[^']*')\\s*$");
    private static final Set<String> NOT_TABLES = Set.of("SELECT", "DUAL", "LATERAL", "TABLE");
    private static final Set<String> KINDS = Set.of("SELECT", "INSERT", "UPDATE", "DELETE", "REPLACE", "UPSERT", "MERGE");

    /** What was read: the kind, the tables, the certain equalities (empty when not certain). */
    record Reading(String kind, String target, List<String> tables, List<Equality> equalities, Set<String> setColumns) {
    }

    /** Where each kind names the table it writes; a statement not in one of these forms is not read. */
    private static final Pattern TARGET = Pattern.compile("^\\s*(?:(?:INSERT|REPLACE|UPSERT|MERGE)\\s+(?:(?:LOW_PRIORITY|"
            + "DELAYED|HIGH_PRIORITY|IGNORE|OR\\s+\\w+)\\s+)*INTO|UPDATE(?:\\s+(?:LOW_PRIORITY|IGNORE))*|DELETE\\s+FROM)"
            + "\\s+([A-Za-z_][\\w$]*(?:\\.[A-Za-z_][\\w$]*)?)", Pattern.CASE_INSENSITIVE);

    private TolerantReading() {
    }

    /** The reading, or null when nothing certain can be kept. */
    static Reading read(SqlSite site) {
        String text = blankLiterals(site.sql()).replaceAll("\\s+", " ");
        String trimmed = text.strip();
        int space = trimmed.indexOf(' ');
        String kind = (space < 0 ? trimmed : trimmed.substring(0, space)).toUpperCase(Locale.ROOT);
        if (!KINDS.contains(kind)) {
            return null;
        }
        String target = null;
        if (!kind.equals("SELECT")) {
            Matcher t = TARGET.matcher(text);
            if (!t.find()) {
                return null;
            }
            Set<String> one = new LinkedHashSet<>();
            addTable(one, t.group(1));
            target = one.isEmpty() ? null : one.iterator().next();
            if (target == null) {
                return null;
            }
            if (kind.equals("UPDATE")) {
                Matcher set = Pattern.compile("\\bSET\\b", Pattern.CASE_INSENSITIVE).matcher(text);
                String between = set.find(t.end()) ? text.substring(t.end(), set.start()) : ",";
                if (between.contains(",") || between.toUpperCase(Locale.ROOT).contains("JOIN")) {
                    return null; // several tables updated (UPDATE T, U SET ...): which one a column is in is not certain
                }
            }
        }
        Set<String> tables = new LinkedHashSet<>();
        if (target != null) {
            tables.add(target);
        }
        int references = 0;
        Matcher m = TABLE_AFTER.matcher(text);
        while (m.find()) {
            addTable(tables, m.group(1));
            references++;
        }
        Matcher from = FROM.matcher(text);
        while (from.find()) {
            String rest = text.substring(from.end());
            Matcher end = CLAUSE_END.matcher(rest);
            String list = end.find() ? rest.substring(0, end.start()) : rest;
            for (String piece : list.split(",")) {
                String[] words = piece.strip().split("\\s+");
                if (words.length > 0 && !words[0].isEmpty()) {
                    addTable(tables, words[0]);
                    references++;
                }
            }
        }
        if (tables.isEmpty()) {
            return null;
        }
        // equalities only when one table is named once (a self-join's other side would be any row)
        List<Equality> equalities = tables.size() == 1 && references <= 1 ? equalities(site, text) : List.of();
        return new Reading(kind, target, List.copyOf(tables), equalities, setColumns(text));
    }

    private static void addTable(Set<String> tables, String name) {
        String n = name.replaceAll("[^\\w$.]", "");
        if (n.isEmpty() || !Character.isLetter(n.charAt(0)) && n.charAt(0) != '_') {
            return;
        }
        n = Schema.normalize(n.contains(".") ? n.substring(n.lastIndexOf('.') + 1) : n);
        if (!NOT_TABLES.contains(n)) {
            tables.add(n);
        }
    }

    /** The equalities of the one WHERE clause when it is a flat conjunction (no parentheses, OR, NOT, BETWEEN). */
    private static List<Equality> equalities(SqlSite site, String text) {
        String upper = text.toUpperCase(Locale.ROOT);
        int where = upper.indexOf(" WHERE ");
        if (where < 0 || upper.indexOf(" WHERE ", where + 1) >= 0 || upper.indexOf("SELECT", upper.indexOf("SELECT") + 1) >= 0) {
            return List.of();
        }
        String clause = text.substring(where + 7);
        Matcher end = Pattern.compile("\\b(?:GROUP|ORDER|HAVING|LIMIT|FETCH|FOR|WITH|RETURNING)\\b|;",
                Pattern.CASE_INSENSITIVE).matcher(clause);
        if (end.find()) {
            clause = clause.substring(0, end.start());
        }
        if (Pattern.compile("[()]|\\b(?:OR|NOT|BETWEEN|ANY|ALL|SOME)\\b", Pattern.CASE_INSENSITIVE).matcher(clause).find()) {
            return List.of();
        }
        int placeholdersBefore = count(text.substring(0, where + 7), '?');
        List<Equality> out = new ArrayList<>();
        int seen = 0;
        for (String conjunct : clause.split("(?i)\\bAND\\b")) {
            Matcher eq = EQUALITY.matcher(conjunct);
            if (eq.matches()) {
                Value v = value(site, eq.group(2), placeholdersBefore + seen + 1);
                if (v != null) {
                    out.add(new Equality(Schema.normalize(eq.group(1)), v));
                }
            }
            seen += count(conjunct, '?');
        }
        return out;
    }

    private static Value value(SqlSite site, String token, int placeholder) {
        if (token.equals("?")) {
            Value v = site.positional().get(placeholder);
            return v != null ? v : new Value.Free("placeholder ?" + placeholder + " not bound to a traceable value");
        }
        if (token.startsWith("'")) {
            return null; // the literal's text was blanked; its value is not kept
        }
        return Value.Constant.number(token);
    }

    /** The columns an UPDATE's SET assigns (an unknown assignment gives {@code *}). */
    private static Set<String> setColumns(String text) {
        Set<String> out = new LinkedHashSet<>();
        Matcher set = Pattern.compile("\\bSET\\b(.*?)(?:\\bWHERE\\b|$)", Pattern.CASE_INSENSITIVE | Pattern.DOTALL).matcher(text);
        while (set.find()) {
            for (String assignment : topLevel(set.group(1))) {
                Matcher col = Pattern.compile("^\\s*(?:[A-Za-z_][\\w$]*\\.)?([A-Za-z_][\\w$]*)\\s*=").matcher(assignment);
                out.add(col.find() ? Schema.normalize(col.group(1)) : Entry.ALL);
            }
        }
        return out;
    }

    /** The pieces of a list between the commas outside parentheses ({@code a = f(b, 1), c = ?} is two). */
    private static List<String> topLevel(String list) {
        List<String> out = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i < list.length(); i++) {
            char c = list.charAt(i);
            depth += c == '(' ? 1 : c == ')' ? -1 : 0;
            if (c == ',' && depth == 0) {
                out.add(list.substring(start, i));
                start = i + 1;
            }
        }
        out.add(list.substring(start));
        return out;
    }

    private static int count(String s, char c) {
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) == c) {
                n++;
            }
        }
        return n;
    }

    /** The text with every string literal's content blanked, so that nothing inside one is read as SQL. */
    private static String blankLiterals(String sql) {
        StringBuilder out = new StringBuilder(sql.length());
        boolean inside = false;
        for (int i = 0; i < sql.length(); i++) {
            char c = sql.charAt(i);
            if (c == '\'') {
                inside = !inside;
                out.append(c);
            } else {
                out.append(inside ? ' ' : c);
            }
        }
        return out.toString();
    }

    /**
     * The entries of a reading: whole rows read, and for a write whole rows of its target table; an UPDATE whose SET
     * list is read writes what an UPDATE of those columns writes ({@code updated}: its columns and its row image,
     * never the rows' existence unless it sets a key column), whatever expressions it assigns. A statement whose kind
     * writes writes, whatever runs it ({@code executeQuery} runs an {@code UPDATE ... RETURNING}).
     */
    static void entries(Reading r, SqlSite site, String shownSql, List<Entry> reads, List<Entry> writes,
                        java.util.function.UnaryOperator<Set<String>> updated) {
        String why = "SQL the parser cannot read, read tolerantly (" + site.source() + ")";
        Condition any = Condition.anyRow(why);
        boolean single = r.tables().size() == 1;
        Condition certain = single && !r.equalities().isEmpty()
                ? new Condition(r.equalities(), List.of(why)) : any;
        for (String t : r.tables()) {
            reads.add(new Entry(t, Set.of(Entry.ALL), single ? certain : any, site.source(), shownSql));
        }
        if (r.kind().equals("SELECT")) {
            return;
        }
        String target = r.target();
        boolean keeps = (r.kind().equals("UPDATE") || r.kind().equals("DELETE")) && single
                && !r.setColumns().contains(Entry.ALL)
                && r.equalities().stream().noneMatch(e -> r.setColumns().contains(e.column()));
        if (r.kind().equals("UPDATE") && !r.setColumns().isEmpty() && !r.setColumns().contains(Entry.ALL)) {
            Set<String> attributes = updated.apply(r.setColumns());
            Entry.Effect effect = attributes.contains(Entry.ALL) || attributes.contains(Entry.EXISTENCE)
                    ? Entry.Effect.ANY : Entry.Effect.CHANGE;
            writes.add(new Entry(target, attributes, keeps ? certain : any, site.source(), shownSql, effect));
            return;
        }
        writes.add(new Entry(target, Set.of(Entry.ALL), keeps ? certain : any, site.source(), shownSql));
    }
}
