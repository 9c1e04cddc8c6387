package dev.gyro.runtime.db;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A small SQL lexer, enough to edit statement text safely: find where a statement really ends (so a
 * {@code RETURNING} clause can be appended after it, docs/decisions/04-row-images.md), see whether a string holds more
 * than one statement, and rewrite the few SQLite spellings JSqlParser does not read ({@code INSERT OR IGNORE},
 * {@code UPDATE OR REPLACE}, {@code [bracketed]} identifiers). It knows string literals, the three identifier
 * quotes, both comment styles and SQLite's parameter forms, so nothing inside a literal or a comment is ever
 * mistaken for a keyword.
 */
final class SqlText {

    private SqlText() {}

    enum Type { WORD, QUOTED, STRING, NUMBER, PARAM, PUNCT }

    /** One token; {@code start}/{@code end} index the original text. */
    record Token(Type type, int start, int end, String text) {
        boolean isWord(String w) {
            return type == Type.WORD && text.equalsIgnoreCase(w);
        }

        boolean isPunct(char c) {
            return type == Type.PUNCT && text.length() == 1 && text.charAt(0) == c;
        }

        String upper() {
            return text.toUpperCase(Locale.ROOT);
        }
    }

    /** Splits {@code sql} into tokens, skipping whitespace and comments. Never fails: unterminated runs end the text. */
    static List<Token> tokens(String sql) {
        List<Token> out = new ArrayList<>();
        int n = sql.length();
        int i = 0;
        while (i < n) {
            char c = sql.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
            } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                while (i < n && sql.charAt(i) != '\n') i++;
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                int close = sql.indexOf("*/", i + 2);
                i = close < 0 ? n : close + 2;
            } else if (c == '\'') {
                int end = quoted(sql, i, '\'');
                out.add(new Token(Type.STRING, i, end, sql.substring(i, end)));
                i = end;
            } else if (c == '"' || c == '`') {
                int end = quoted(sql, i, c);
                out.add(new Token(Type.QUOTED, i, end, sql.substring(i, end)));
                i = end;
            } else if (c == '[') {
                int close = sql.indexOf(']', i + 1);
                int end = close < 0 ? n : close + 1;
                out.add(new Token(Type.QUOTED, i, end, sql.substring(i, end)));
                i = end;
            } else if (c == '?' || ((c == ':' || c == '@' || c == '$') && i + 1 < n && isWordChar(sql.charAt(i + 1)))) {
                int end = i + 1;
                while (end < n && (isWordChar(sql.charAt(end)))) end++;
                out.add(new Token(Type.PARAM, i, end, sql.substring(i, end)));
                i = end;
            } else if (Character.isDigit(c) || (c == '.' && i + 1 < n && Character.isDigit(sql.charAt(i + 1)))) {
                int end = i + 1;
                while (end < n && (Character.isLetterOrDigit(sql.charAt(end)) || sql.charAt(end) == '.')) end++;
                out.add(new Token(Type.NUMBER, i, end, sql.substring(i, end)));
                i = end;
            } else if (isWordStart(c)) {
                int end = i + 1;
                while (end < n && isWordChar(sql.charAt(end))) end++;
                out.add(new Token(Type.WORD, i, end, sql.substring(i, end)));
                i = end;
            } else {
                out.add(new Token(Type.PUNCT, i, i + 1, String.valueOf(c)));
                i++;
            }
        }
        return out;
    }

    private static int quoted(String sql, int start, char quote) {
        int i = start + 1;
        int n = sql.length();
        while (i < n) {
            if (sql.charAt(i) == quote) {
                if (i + 1 < n && sql.charAt(i + 1) == quote) {
                    i += 2; // doubled quote: an escaped quote character
                    continue;
                }
                return i + 1;
            }
            i++;
        }
        return n;
    }

    private static boolean isWordStart(char c) {
        return Character.isLetter(c) || c == '_';
    }

    private static boolean isWordChar(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == '$';
    }

    /**
     * The tokens of the one statement in {@code sql}, without trailing semicolons.
     *
     * @throws IllegalArgumentException if the text holds no statement or more than one
     */
    static List<Token> singleStatement(String sql) {
        List<Token> all = tokens(sql);
        int end = all.size();
        while (end > 0 && all.get(end - 1).isPunct(';')) end--;
        if (end == 0) throw new IllegalArgumentException("empty SQL statement");
        for (int i = 0; i < end; i++)
            if (all.get(i).isPunct(';'))
                throw new IllegalArgumentException("more than one SQL statement in one call");
        return all.subList(0, end);
    }

    /**
     * The statement text up to the end of its last token: trailing semicolons, comments and whitespace removed,
     * so that a clause can be appended to it.
     */
    static String withoutTail(String sql) {
        List<Token> t = singleStatement(sql);
        return sql.substring(0, t.get(t.size() - 1).end());
    }

    /** The identifier without its quotes ({@code "a""b"} is {@code a"b}); a bare word is returned as it is. */
    static String unquote(String identifier) {
        if (identifier == null || identifier.length() < 2) return identifier;
        char first = identifier.charAt(0);
        char last = identifier.charAt(identifier.length() - 1);
        if ((first == '"' && last == '"') || (first == '`' && last == '`')) {
            String inner = identifier.substring(1, identifier.length() - 1);
            return inner.replace(String.valueOf(first) + first, String.valueOf(first));
        }
        if (first == '[' && last == ']') return identifier.substring(1, identifier.length() - 1);
        return identifier;
    }

    /** {@code "name"} with embedded double quotes doubled: the ANSI quoting every supported DBMS accepts. */
    static String doubleQuote(String name) {
        return '"' + name.replace("\"", "\"\"") + '"';
    }
}
