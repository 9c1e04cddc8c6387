package dev.gyro.runtime.db;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A cache of {@link TableInfo} per table, read through {@link DatabaseMetaData} (JDBC only:
 * docs/decisions/02-jdbc-only.md). One catalog serves all connections of a {@link Database}; the schema of an
 * application's tables does not change while Gyro runs (DDL is refused inside captured transactions). Call
 * {@link #invalidate()} after a schema change made outside Gyro. Thread-safe.
 */
public final class TableCatalog {

    private static final ConcurrentHashMap<String, TableCatalog> BY_URL = new ConcurrentHashMap<>();

    private final ConcurrentHashMap<String, TableInfo> cache = new ConcurrentHashMap<>();

    /** The catalog shared by everything that reaches the database at {@code jdbcUrl} in this JVM. */
    public static TableCatalog forUrl(String jdbcUrl) {
        return BY_URL.computeIfAbsent(jdbcUrl == null ? "" : jdbcUrl, u -> new TableCatalog());
    }

    /**
     * The table named {@code table} (any case; {@code schema} may be null), read with {@code connection}'s
     * metadata on first use.
     *
     * @throws SQLException (SQLState 42S02) when no such table exists, or when the metadata cannot be read
     */
    public TableInfo table(Connection connection, String schema, String table) throws SQLException {
        String key = (schema == null ? "" : schema.toLowerCase(Locale.ROOT) + ".") + table.toLowerCase(Locale.ROOT);
        TableInfo info = cache.get(key);
        if (info == null) {
            Dialect dialect = Dialect.of(connection);
            String catalog = dialect.metadataCatalog(connection);
            info = read(connection.getMetaData(), catalog, schema != null ? schema : dialect.defaultSchema(connection),
                    table);
            cache.put(key, info);
        }
        return info;
    }

    /** Forgets everything read so far. */
    public void invalidate() {
        cache.clear();
    }

    private static TableInfo read(DatabaseMetaData md, String catalog, String schema, String table)
            throws SQLException {
        String name = resolveName(md, catalog, schema, table);
        if (name == null)
            throw new SQLException("no such table: " + (schema == null ? "" : schema + ".") + table, "42S02");

        List<String> columns = new ArrayList<>();
        TreeMap<Integer, String> ordered = new TreeMap<>();
        List<String> autoIncrement = new ArrayList<>();
        try (ResultSet rs = md.getColumns(catalog, schema, name, "%")) {
            while (rs.next()) {
                if (!name.equals(rs.getString("TABLE_NAME"))) continue;
                String generated = null;
                String autoIncremented = null;
                try {
                    generated = rs.getString("IS_GENERATEDCOLUMN");
                    autoIncremented = rs.getString("IS_AUTOINCREMENT");
                } catch (SQLException noSuchColumn) {
                    // pre-JDBC-4.1 driver: no generated columns reported
                }
                if ("YES".equalsIgnoreCase(generated)) continue;
                ordered.put(rs.getInt("ORDINAL_POSITION"), rs.getString("COLUMN_NAME"));
                if ("YES".equalsIgnoreCase(autoIncremented)) autoIncrement.add(rs.getString("COLUMN_NAME"));
            }
        }
        columns.addAll(ordered.values());

        TreeMap<Short, String> keyOrder = new TreeMap<>();
        try (ResultSet rs = md.getPrimaryKeys(catalog, schema, name)) {
            while (rs.next()) keyOrder.put(rs.getShort("KEY_SEQ"), rs.getString("COLUMN_NAME"));
        }
        List<String> keys = new ArrayList<>(keyOrder.values());

        // UNIQUE indexes other than the primary key's own (REPLACE resolves conflicts on them by deleting rows).
        Map<String, Set<String>> unique = new LinkedHashMap<>();
        try (ResultSet rs = md.getIndexInfo(catalog, schema, name, true, true)) {
            while (rs.next()) {
                if (rs.getBoolean("NON_UNIQUE")) continue;
                String index = rs.getString("INDEX_NAME");
                if (index == null) continue; // table statistics row
                String column = rs.getString("COLUMN_NAME");
                unique.computeIfAbsent(index, k -> new LinkedHashSet<>())
                        .add(column == null ? "<expression>" : column.toLowerCase(Locale.ROOT));
            }
        }
        Set<String> keySet = new LinkedHashSet<>();
        for (String k : keys) keySet.add(k.toLowerCase(Locale.ROOT));
        String otherUnique = null;
        for (Map.Entry<String, Set<String>> e : unique.entrySet()) {
            if (!e.getValue().equals(keySet)) {
                otherUnique = e.getKey();
                break;
            }
        }
        boolean foreignKeys;
        try (ResultSet in = md.getImportedKeys(catalog, schema, name);
             ResultSet out = md.getExportedKeys(catalog, schema, name)) {
            foreignKeys = in.next() || out.next();
        }
        return new TableInfo(name, columns, keys, otherUnique, autoIncrement, foreignKeys);
    }

    /** The table's name as the DBMS spells it: exact match first, then any-case (SQLite and MariaDB fold freely). */
    private static String resolveName(DatabaseMetaData md, String catalog, String schema, String table)
            throws SQLException {
        List<String> candidates = new ArrayList<>();
        for (String pattern : List.of(table, table.toLowerCase(Locale.ROOT), table.toUpperCase(Locale.ROOT))) {
            try (ResultSet rs = md.getTables(catalog, schema, escape(md, pattern), new String[] {"TABLE"})) {
                while (rs.next()) candidates.add(rs.getString("TABLE_NAME"));
            }
            for (String c : candidates) if (c.equals(table)) return c;
            for (String c : candidates) if (c.equalsIgnoreCase(table)) return c;
        }
        return null;
    }

    private static String escape(DatabaseMetaData md, String pattern) throws SQLException {
        String esc = md.getSearchStringEscape();
        if (esc == null || esc.isEmpty()) return pattern;
        return pattern.replace(esc, esc + esc).replace("_", esc + "_").replace("%", esc + "%");
    }
}
