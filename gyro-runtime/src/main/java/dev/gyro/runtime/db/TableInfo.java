package dev.gyro.runtime.db;

import java.util.List;
import java.util.Locale;

/**
 * What write capture and update application need to know about one table, read from
 * {@link java.sql.DatabaseMetaData} by {@link TableCatalog}.
 *
 * @param name              the table's name as the DBMS spells it (the name row changes carry)
 * @param columns           the stored, writable columns in table order (generated columns left out: they are
 *                          recomputed by every instance and cannot be written)
 * @param keyColumns        the primary-key columns in key order; empty when the table has no primary key
 * @param otherUniqueIndex  the name of a UNIQUE index or constraint other than the primary key, or null when
 *                          there is none (REPLACE may then silently delete rows the capture cannot see)
 * @param autoIncrementColumns the columns whose values the DBMS generates when an insert leaves them out
 *                          (AUTOINCREMENT, AUTO_INCREMENT, serial and identity columns), as the driver reports them
 * @param foreignKeys       whether a foreign key refers to this table or from it (a write here may then be refused,
 *                          or cascade, depending on writes to other tables)
 */
public record TableInfo(String name, List<String> columns, List<String> keyColumns, String otherUniqueIndex,
                        List<String> autoIncrementColumns, boolean foreignKeys) {

    public TableInfo {
        columns = List.copyOf(columns);
        keyColumns = List.copyOf(keyColumns);
        autoIncrementColumns = List.copyOf(autoIncrementColumns);
    }

    public TableInfo(String name, List<String> columns, List<String> keyColumns, String otherUniqueIndex) {
        this(name, columns, keyColumns, otherUniqueIndex, List.of(), false);
    }

    public boolean hasPrimaryKey() {
        return !keyColumns.isEmpty();
    }

    /** True when {@code column} (any case, quotes removed) is a primary-key column. */
    public boolean isKeyColumn(String column) {
        for (String k : keyColumns) if (k.equalsIgnoreCase(column)) return true;
        return false;
    }

    /** The column's name as the table spells it, or null when the table has no such writable column. */
    public String column(String anyCase) {
        for (String c : columns) if (c.equals(anyCase)) return c;
        String lower = anyCase.toLowerCase(Locale.ROOT);
        for (String c : columns) if (c.toLowerCase(Locale.ROOT).equals(lower)) return c;
        return null;
    }
}
