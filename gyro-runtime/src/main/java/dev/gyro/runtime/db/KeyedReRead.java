package dev.gyro.runtime.db;

import java.sql.SQLException;
import java.util.List;
import java.util.StringJoiner;

/**
 * Row-image capture for a backend without RETURNING for UPDATE (MariaDB; docs/decisions/04-row-images.md: a keyed
 * re-read where RETURNING is missing): before the UPDATE runs, a locking SELECT with the statement's own WHERE clause
 * (and ORDER BY / LIMIT) reads the primary keys of the rows it is about to write; after it ran, those rows are read
 * back by key. Under SERIALIZABLE the locks taken by the first read keep any other transaction from changing which rows
 * match in between, and capture refuses UPDATEs that set a key column, so the keys read before are the keys written.
 *
 * <p>Parameters: the SELECT reuses the statement's text from its WHERE on, so its parameters are the statement's
 * parameters after the first {@link #firstWhereParameter()} (those of the SET clause).
 *
 * @param tableReference the text naming the table, with its alias if any ({@code ITEMS i})
 * @param tail           the text from WHERE (or ORDER BY / LIMIT) to the end, or "" when the UPDATE has none
 * @param firstWhereParameter how many {@code ?} parameters come before {@code tail}
 */
record KeyedReRead(String tableReference, String tail, int firstWhereParameter) {

    /** Rows read back per query. */
    static final int CHUNK = 200;

    /**
     * Reads {@code sql}, a single-table UPDATE ({@code UPDATE [LOW_PRIORITY] [IGNORE] table [alias] SET ...
     * [WHERE ...] [ORDER BY ...] [LIMIT ...]}).
     *
     * @throws SQLException (0A000) when the statement does not have that shape
     */
    static KeyedReRead ofUpdate(String sql) throws SQLException {
        List<SqlText.Token> t;
        try {
            t = SqlText.singleStatement(sql);
        } catch (IllegalArgumentException e) {
            throw WriteStatement.refused("cannot capture [" + WriteStatement.abbreviate(sql) + "]: " + e.getMessage());
        }
        int i = 0;
        if (!t.get(i).isWord("UPDATE")) throw shape(sql);
        i++;
        while (i < t.size() && (t.get(i).isWord("LOW_PRIORITY") || t.get(i).isWord("IGNORE"))) i++;
        int refStart = i;
        int set = -1, tailAt = -1, depth = 0;
        for (int k = refStart; k < t.size(); k++) {
            SqlText.Token tok = t.get(k);
            if (tok.isPunct('(')) depth++;
            else if (tok.isPunct(')')) depth--;
            else if (depth == 0 && set < 0 && tok.isWord("SET")) set = k;
            else if (depth == 0 && set >= 0 && (tok.isWord("WHERE") || tok.isWord("LIMIT")
                    || (tok.isWord("ORDER") && k + 1 < t.size() && t.get(k + 1).isWord("BY")))) {
                tailAt = k;
                break;
            }
        }
        if (set <= refStart) throw shape(sql);
        String reference = sql.substring(t.get(refStart).start(), t.get(set - 1).end());
        int before = 0;
        int end = tailAt < 0 ? t.size() : tailAt;
        for (int k = 0; k < end; k++) if (t.get(k).type() == SqlText.Type.PARAM && t.get(k).text().equals("?")) before++;
        String tail = tailAt < 0 ? "" : sql.substring(t.get(tailAt).start(), t.get(t.size() - 1).end());
        return new KeyedReRead(reference, tail, before);
    }

    private static SQLException shape(String sql) {
        return WriteStatement.refused("cannot capture [" + WriteStatement.abbreviate(sql) + "]: not a single-table"
                + " UPDATE ... SET ... [WHERE ...] whose rows can be read back by key");
    }

    /**
     * The locking SELECT of {@code columns} of the rows the UPDATE will write: their keys, or, in a table without a
     * key, every column (the rows as they were).
     */
    String keySelect(Dialect dialect, List<String> columns) {
        StringJoiner keys = new StringJoiner(", ");
        for (String k : columns) keys.add(dialect.quote(k));
        return "SELECT " + keys + " FROM " + tableReference + (tail.isEmpty() ? "" : " " + tail)
                + (dialect.selectsForUpdate() ? " FOR UPDATE" : "");
    }

    /** {@code SELECT * FROM table WHERE (k1 = ? AND k2 = ?) OR ...} for {@code rows} keys. */
    static String rowSelect(Dialect dialect, String table, List<String> keyColumns, int rows) {
        StringJoiner one = new StringJoiner(" AND ", "(", ")");
        for (String k : keyColumns) one.add(dialect.quote(k) + " = ?");
        StringJoiner where = new StringJoiner(" OR ");
        for (int r = 0; r < rows; r++) where.add(one.toString());
        return "SELECT * FROM " + dialect.quote(table) + " WHERE " + where;
    }
}
