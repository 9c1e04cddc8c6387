package dev.gyro.runtime.db;

import dev.gyro.protocol.Value;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/** Test helpers: real SQLite files, whole-table dumps. */
final class Db {

    private Db() {}

    static Database open(Path dir, String name) throws SQLException {
        return Database.open(SqliteDialect.INSTANCE, dir.resolve(name).toString());
    }

    static Database open(Path dir, String name, Database.Options options) throws SQLException {
        return Database.open(SqliteDialect.INSTANCE, dir.resolve(name).toString(), options);
    }

    /** Runs each statement in one committed transaction. */
    static void exec(Database db, String... sqls) throws SQLException {
        db.inTransaction(false, c -> {
            try (Statement st = c.createStatement()) {
                for (String sql : sqls) st.executeUpdate(sql);
            }
            return null;
        });
    }

    /** Every row of {@code table} ordered by its first column, as typed values. */
    static List<List<Value>> dump(Database db, String table) throws SQLException {
        return db.inTransaction(true, c -> dump(c, table, db.dialect()));
    }

    static List<List<Value>> dump(Connection c, String table) throws SQLException {
        return dump(c, table, SqliteDialect.INSTANCE);
    }

    static List<List<Value>> dump(Connection c, String table, Dialect dialect) throws SQLException {
        List<List<Value>> rows = new ArrayList<>();
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT * FROM " + table + " ORDER BY 1"
                     + (columns(c, table) > 1 ? ", 2" : ""))) {
            ResultSetMetaData md = rs.getMetaData();
            while (rs.next()) {
                List<Value> row = new ArrayList<>();
                for (int i = 1; i <= md.getColumnCount(); i++) row.add(dialect.toValue(rs.getObject(i)));
                rows.add(row);
            }
        }
        return rows;
    }

    static long count(Database db, String table) throws SQLException {
        return db.inTransaction(true, c -> {
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT count(*) FROM " + table)) {
                rs.next();
                return rs.getLong(1);
            }
        });
    }

    private static int columns(Connection c, String table) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT * FROM " + table + " WHERE 1 = 0")) {
            return rs.getMetaData().getColumnCount();
        }
    }
}
