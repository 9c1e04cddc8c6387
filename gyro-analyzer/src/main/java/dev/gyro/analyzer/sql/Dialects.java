package dev.gyro.analyzer.sql;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Vendor forms rewritten before parsing into forms JSqlParser reads with the same reads and writes: DB2's
 * labeled durations ({@code CURRENT TIMESTAMP + 2 HOURS} becomes {@code CURRENT_TIMESTAMP + 2}: the value
 * changes, but a time value is never a key the analysis binds), {@code CURRENT DATE}, and clauses that
 * only tune or lock ({@code OPTIMIZE FOR n ROWS}, {@code QUERYNO n}, {@code WITH UR}, {@code LOCK IN SHARE
 * MODE}). Only text outside string literals is rewritten, so constants keep their values.
 */
final class Dialects {
    private record Rule(Pattern pattern, String replacement) {
    }

    private static final List<Rule> RULES = List.of(
            new Rule(Pattern.compile("\\bCURRENT\\s+(TIMESTAMP|DATE|TIME)\\b", Pattern.CASE_INSENSITIVE), "CURRENT_$1"),
            new Rule(Pattern.compile("([+-]\\s*)(\\?|\\d+(?:\\.\\d+)?|\\([^()]*\\))\\s+(?:YEARS?|MONTHS?|DAYS?|HOURS?|"
                    + "MINUTES?|SECONDS?|MICROSECONDS?)\\b", Pattern.CASE_INSENSITIVE), "$1$2"),
            new Rule(Pattern.compile("\\bOPTIMIZE\\s+FOR\\s+\\d+\\s+ROWS?\\b", Pattern.CASE_INSENSITIVE), ""),
            new Rule(Pattern.compile("\\bQUERYNO\\s+\\d+\\b", Pattern.CASE_INSENSITIVE), ""),
            new Rule(Pattern.compile("\\bWITH\\s+(?:UR|CS|RS|RR)(?:\\s+USE\\s+AND\\s+KEEP\\s+\\w+\\s+LOCKS)?\\s*$",
                    Pattern.CASE_INSENSITIVE), ""),
            new Rule(Pattern.compile("\\bLOCK\\s+IN\\s+SHARE\\s+MODE\\b", Pattern.CASE_INSENSITIVE), "FOR UPDATE"));

    private Dialects() {
    }

    /** The statement with the vendor forms outside string literals rewritten. */
    static String normalize(String sql) {
        StringBuilder out = new StringBuilder();
        int i = 0;
        while (i < sql.length()) {
            int quote = sql.indexOf('\'', i);
            String code = quote < 0 ? sql.substring(i) : sql.substring(i, quote);
            out.append(rewrite(code));
            if (quote < 0) {
                break;
            }
            int end = quote + 1;
            while (end < sql.length() && (sql.charAt(end) != '\'' || end + 1 < sql.length() && sql.charAt(end + 1) == '\'')) {
                end += sql.charAt(end) == '\'' ? 2 : 1;
            }
            out.append(sql, quote, Math.min(end + 1, sql.length()));
            i = end + 1;
        }
        return out.toString();
    }

    private static String rewrite(String code) {
        String s = code;
        for (Rule r : RULES) {
            Matcher m = r.pattern().matcher(s);
            s = m.replaceAll(r.replacement());
        }
        return s;
    }
}
