package dev.gyro.analyzer.java;

import com.github.javaparser.ast.expr.StringLiteralExpr;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a double quote is in the application's SQL: an identifier's quote (ANSI SQL, PostgreSQL, Oracle, ...) or a
 * string literal's (MySQL and MariaDB without ANSI_QUOTES: {@code "... VALUES (\"" + name + "\", ..."} puts a value in
 * a string). {@link #AUTO} decides from the sources: MySQL when a {@code jdbc:mysql:} or {@code jdbc:mariadb:} URL, or
 * MySQL DDL ({@code ENGINE=}, backquoted names), is there and no other vendor's JDBC URL is, unless the sources set
 * MySQL's {@code ANSI_QUOTES} SQL mode (in a URL's session variables, a {@code SET sql_mode}, or the {@code ANSI}
 * mode that includes it), under which a double quote is an identifier's; otherwise ANSI, whose reading of a value
 * between double quotes is the conservative one (an identifier: computed SQL).
 */
public enum Quoting {
    AUTO, ANSI, MYSQL;

    private static final Set<String> MYSQL_URLS = Set.of("mysql", "mariadb");

    /** The quoting of the sources: this one unless AUTO. */
    Quoting resolve(SourceIndex index) {
        if (this != AUTO) {
            return this;
        }
        Set<String> vendors = new TreeSet<>();
        boolean ansiQuotes = false;
        for (var unit : index.units().values()) {
            for (StringLiteralExpr s : unit.findAll(StringLiteralExpr.class)) {
                String v = s.getValue().toLowerCase(Locale.ROOT);
                if (v.startsWith("jdbc:") && v.indexOf(':', 5) > 5) {
                    vendors.add(v.substring(5, v.indexOf(':', 5)));
                }
                ansiQuotes |= setsAnsiQuotes(v);
            }
        }
        boolean mysqlDdl = false;
        for (Path sql : index.sqlFiles()) {
            try {
                String text = Files.readString(sql).toUpperCase(Locale.ROOT);
                mysqlDdl |= text.contains("ENGINE=") || text.contains("ENGINE =") || text.contains("`");
                ansiQuotes |= setsAnsiQuotes(text.toLowerCase(Locale.ROOT));
            } catch (IOException unreadable) {
                // the schema reader reports it
            }
        }
        boolean mysql = !vendors.isEmpty() ? MYSQL_URLS.containsAll(vendors) : mysqlDdl;
        return mysql && !ansiQuotes ? MYSQL : ANSI;
    }

    /**
     * Whether lower-case {@code text} sets MySQL's {@code ANSI_QUOTES} SQL mode, alone or within {@code ANSI}: a
     * {@code sql_mode} followed, in the same text, by either word (a URL's {@code sessionVariables=sql_mode=...}, a
     * {@code SET sql_mode = '...'}). A mention without {@code sql_mode} counts too when it names {@code ansi_quotes}.
     */
    private static boolean setsAnsiQuotes(String text) {
        if (text.contains("ansi_quotes")) {
            return true;
        }
        int at = text.indexOf("sql_mode");
        return at >= 0 && java.util.regex.Pattern.compile("\\bansi\\b").matcher(text.substring(at)).find();
    }

    /** The quote of the string literal open at the end of the text ({@code '}, or {@code "} when it quotes strings), else 0. */
    static char openQuote(CharSequence sb, boolean doubleQuotedStrings) {
        char open = 0;
        for (int i = 0; i < sb.length(); i++) {
            char c = sb.charAt(i);
            if (open == 0) {
                open = c == '\'' || c == '"' && doubleQuotedStrings ? c : 0;
            } else if (open == '"' && c == '\\') {
                i++; // MySQL's escaped character
            } else if (c == open) {
                open = 0;
            }
        }
        return open;
    }

    /** MySQL text with its double-quoted strings written as standard single-quoted ones, for the parser. */
    static String singleQuoted(CharSequence sql) {
        StringBuilder out = new StringBuilder(sql.length());
        char open = 0;
        for (int i = 0; i < sql.length(); i++) {
            char c = sql.charAt(i);
            if (open == 0) {
                open = c == '\'' || c == '"' ? c : 0;
                out.append(c == '"' ? '\'' : c);
            } else if (open == '"') {
                if (c == '\\' && i + 1 < sql.length()) {
                    char escaped = sql.charAt(++i);
                    out.append(escaped == '\'' ? "''" : String.valueOf(escaped));
                } else if (c == '"') {
                    open = 0;
                    out.append('\'');
                } else {
                    out.append(c == '\'' ? "''" : String.valueOf(c));
                }
            } else {
                out.append(c);
                if (c == '\'') {
                    open = 0;
                }
            }
        }
        return out.toString();
    }
}
