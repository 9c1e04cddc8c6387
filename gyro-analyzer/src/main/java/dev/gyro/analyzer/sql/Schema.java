package dev.gyro.analyzer.sql;

import net.sf.jsqlparser.statement.alter.Alter;
import net.sf.jsqlparser.statement.alter.AlterExpression;
import net.sf.jsqlparser.statement.create.index.CreateIndex;
import net.sf.jsqlparser.statement.create.table.ColumnDefinition;
import net.sf.jsqlparser.statement.create.table.CreateTable;
import net.sf.jsqlparser.statement.create.table.Index;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What the analysis knows of the database schema: tables, their columns and their unique keys. It is
 * learned from CREATE TABLE statements found in the analyzed paths (string constants in Java sources and
 * {@code .sql} files), keys also from {@code CREATE UNIQUE INDEX} and {@code ALTER TABLE ... ADD
 * [CONSTRAINT c] PRIMARY KEY | UNIQUE (...)}, and, for columns only, from the DML statements themselves (a column named in a
 * single-table statement belongs to that table).
 *
 * <p>The schema makes the analysis more precise, never less safe: it is used to attribute unqualified
 * columns of joins (a column known to belong to exactly one joined table belongs to it, since the DBMS
 * rejects ambiguous names), to name the columns of an INSERT without a column list, and to know which
 * rows an INSERT checks for duplicate keys.
 */
public final class Schema {
    private final Map<String, Set<String>> columns = new LinkedHashMap<>();
    private final Map<String, List<String>> declaredColumns = new LinkedHashMap<>();
    private final Map<String, List<List<String>>> uniqueKeys = new LinkedHashMap<>();
    private final Map<String, List<String>> primaryKeys = new LinkedHashMap<>();
    /** Keys declared apart from CREATE TABLE (ALTER TABLE, CREATE UNIQUE INDEX), in whichever order they come. */
    private final Map<String, List<List<String>>> addedKeys = new LinkedHashMap<>();
    /** How the application spells tables ({@code T}) and columns ({@code T.C}), by upper-case name: CREATE TABLE first. */
    private final Map<String, String> spellings = new LinkedHashMap<>();

    public static String normalize(String identifier) {
        return unquoted(identifier).toUpperCase(Locale.ROOT);
    }

    private static String unquoted(String identifier) {
        String s = identifier.trim();
        if (s.length() >= 2 && (s.startsWith("\"") && s.endsWith("\"") || s.startsWith("`") && s.endsWith("`")
                || s.startsWith("[") && s.endsWith("]"))) {
            s = s.substring(1, s.length() - 1);
        }
        return s;
    }

    /** Learns one column of a table from a statement that uses it. */
    public void learnColumn(String table, String column) {
        columns.computeIfAbsent(normalize(table), t -> new LinkedHashSet<>()).add(normalize(column));
        spellings.putIfAbsent(normalize(table), unquoted(table));
        spellings.putIfAbsent(normalize(table) + "." + normalize(column), unquoted(column));
    }

    /**
     * How the application spells tables and columns, without quotes, by upper-case name ({@code T}, {@code T.C}): as
     * their CREATE TABLE does, else as the first statement naming them does.
     */
    public Map<String, String> spellings() {
        return Collections.unmodifiableMap(spellings);
    }

    /** Learns a table's columns and keys from its CREATE TABLE statement. */
    public void learn(CreateTable create) {
        String table = normalize(create.getTable().getName());
        spellings.put(table, unquoted(create.getTable().getName()));
        List<String> declared = new ArrayList<>();
        List<List<String>> keys = new ArrayList<>();
        if (create.getColumnDefinitions() != null) {
            for (ColumnDefinition def : create.getColumnDefinitions()) {
                String column = normalize(def.getColumnName());
                spellings.put(table + "." + column, unquoted(def.getColumnName()));
                declared.add(column);
                List<String> specs = def.getColumnSpecs() == null ? List.of()
                        : def.getColumnSpecs().stream().map(s -> s.toUpperCase(Locale.ROOT)).toList();
                if (specs.contains("UNIQUE") || containsSequence(specs, "PRIMARY", "KEY")) {
                    keys.add(List.of(column));
                }
                if (containsSequence(specs, "PRIMARY", "KEY")) {
                    primaryKeys.put(table, List.of(column));
                }
            }
        }
        if (create.getIndexes() != null) {
            for (Index index : create.getIndexes()) {
                String type = index.getType() == null ? "" : index.getType().toUpperCase(Locale.ROOT);
                if (type.contains("PRIMARY") || type.contains("UNIQUE")) {
                    keys.add(index.getColumnsNames().stream().map(Schema::normalize).toList());
                }
                if (type.contains("PRIMARY")) {
                    primaryKeys.put(table, index.getColumnsNames().stream().map(Schema::normalize).toList());
                }
            }
        }
        keys.addAll(addedKeys.getOrDefault(table, List.of()));
        declaredColumns.put(table, List.copyOf(declared));
        uniqueKeys.put(table, List.copyOf(keys));
        for (String c : declared) {
            learnColumn(table, c);
        }
    }

    /** Learns a unique key from {@code CREATE UNIQUE INDEX name ON table (columns)}. */
    public void learn(CreateIndex create) {
        String type = create.getIndex() == null || create.getIndex().getType() == null ? ""
                : create.getIndex().getType().toUpperCase(Locale.ROOT);
        if (create.getTable() != null && type.contains("UNIQUE") && create.getIndex().getColumnsNames() != null) {
            addKey(create.getTable().getName(), create.getIndex().getColumnsNames(), false);
        }
    }

    /** Learns keys from {@code ALTER TABLE t ADD [CONSTRAINT c] PRIMARY KEY (...)} or {@code ... UNIQUE (...)}. */
    public void learn(Alter alter) {
        if (alter.getTable() == null || alter.getAlterExpressions() == null) {
            return;
        }
        for (AlterExpression e : alter.getAlterExpressions()) {
            if (e.getOperation() != null && e.getOperation().name().equals("ADD")) {
                if (e.getPkColumns() != null && !e.getPkColumns().isEmpty()) {
                    addKey(alter.getTable().getName(), e.getPkColumns(), true);
                } else if (e.getUkColumns() != null && !e.getUkColumns().isEmpty()) {
                    addKey(alter.getTable().getName(), e.getUkColumns(), false);
                }
            }
        }
    }

    private void addKey(String tableName, List<String> columnNames, boolean primary) {
        String table = normalize(tableName);
        List<String> key = columnNames.stream().map(Schema::normalize).toList();
        addedKeys.computeIfAbsent(table, t -> new ArrayList<>()).add(key);
        if (uniqueKeys.containsKey(table)) {
            List<List<String>> keys = new ArrayList<>(uniqueKeys.get(table));
            keys.add(key);
            uniqueKeys.put(table, List.copyOf(keys));
        }
        if (primary) {
            primaryKeys.put(table, key);
        }
    }

    /** The primary key's columns, or an empty list when unknown (a row image is located by it). */
    public List<String> primaryKey(String table) {
        return primaryKeys.getOrDefault(table, List.of());
    }

    private static boolean containsSequence(List<String> specs, String first, String second) {
        for (int i = 0; i + 1 < specs.size(); i++) {
            if (specs.get(i).equals(first) && specs.get(i + 1).equals(second)) {
                return true;
            }
        }
        return false;
    }

    /** Whether the column is known to belong to the table (upper-case names). */
    public boolean hasColumn(String table, String column) {
        Set<String> known = columns.get(table);
        return known != null && known.contains(column);
    }

    /** Whether the table's columns were declared by a CREATE TABLE (so its column list is complete). */
    public boolean declared(String table) {
        return declaredColumns.containsKey(table);
    }

    /** The declared columns in order, or an empty list when the table's CREATE TABLE was not seen. */
    public List<String> declaredColumns(String table) {
        return declaredColumns.getOrDefault(table, List.of());
    }

    /** The primary and unique keys, or an empty list when unknown. */
    public List<List<String>> uniqueKeys(String table) {
        return uniqueKeys.getOrDefault(table, List.of());
    }

    public Set<String> tables() {
        return Collections.unmodifiableSet(columns.keySet());
    }
}
