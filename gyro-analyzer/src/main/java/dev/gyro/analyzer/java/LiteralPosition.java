package dev.gyro.analyzer.java;

import java.util.Locale;
import java.util.Set;

/**
 * Whether a value concatenated into SQL text outside quotes stands where a literal goes, so that it is a value bound
 * like a placeholder (gyro-analyzer/README.md, "SQL text"): after a comparison or arithmetic operator, as an element of
 * a VALUES or IN list, after LIMIT, OFFSET, TOP or LIKE. Anywhere else (a select list, a function's argument, right
 * after WHERE or AND, ORDER BY) the text could be a column name or a condition, which changes what the statement
 * reads: the SQL is then computed, never a value.
 */
final class LiteralPosition {
    private LiteralPosition() {
    }

    private static final Set<String> BEFORE_A_VALUE = Set.of("LIMIT", "OFFSET", "TOP", "LIKE");
    private static final Set<String> LISTS_OF_VALUES = Set.of("VALUES", "IN");

    /** Whether what follows {@code sql} (the text so far, outside quotes) is a literal's place. */
    static boolean follows(CharSequence sql) {
        int end = skipBlanks(sql, sql.length());
        if (end == 0) {
            return false;
        }
        char c = sql.charAt(end - 1);
        if ("=<>+-*/%".indexOf(c) >= 0) {
            return true;
        }
        if (c == '(' || c == ',') {
            int open = c == '(' ? end - 1 : unmatchedOpen(sql, end - 1);
            if (open < 0) {
                return false;
            }
            int beforeOpen = skipBlanks(sql, open);
            if (beforeOpen > 0 && sql.charAt(beforeOpen - 1) == ',' && c == '(') {
                return rowOfValues(sql, beforeOpen - 1); // VALUES (...), ( : the next row
            }
            return LISTS_OF_VALUES.contains(wordBefore(sql, beforeOpen));
        }
        return BEFORE_A_VALUE.contains(wordBefore(sql, end));
    }

    /** {@code ..., (} where the comma follows a row of a VALUES list. */
    private static boolean rowOfValues(CharSequence sql, int comma) {
        int close = skipBlanks(sql, comma);
        if (close == 0 || sql.charAt(close - 1) != ')') {
            return false;
        }
        int depth = 0;
        for (int i = close - 1; i >= 0; i--) {
            char c = sql.charAt(i);
            if (c == ')') {
                depth++;
            } else if (c == '(' && --depth == 0) {
                return "VALUES".equals(wordBefore(sql, skipBlanks(sql, i))) || rowOfValues(sql, skipBlanks(sql, i) - 1);
            }
        }
        return false;
    }

    /** The position of the '(' that encloses {@code from}, not closed before it; -1 if none. */
    private static int unmatchedOpen(CharSequence sql, int from) {
        int depth = 0;
        for (int i = from - 1; i >= 0; i--) {
            char c = sql.charAt(i);
            if (c == ')') {
                depth++;
            } else if (c == '(') {
                if (depth == 0) {
                    return i;
                }
                depth--;
            }
        }
        return -1;
    }

    private static int skipBlanks(CharSequence sql, int end) {
        int i = end;
        while (i > 0 && Character.isWhitespace(sql.charAt(i - 1))) {
            i--;
        }
        return i;
    }

    private static String wordBefore(CharSequence sql, int end) {
        int i = end;
        while (i > 0 && Character.isLetter(sql.charAt(i - 1))) {
            i--;
        }
        return sql.subSequence(i, end).toString().toUpperCase(Locale.ROOT);
    }
}
