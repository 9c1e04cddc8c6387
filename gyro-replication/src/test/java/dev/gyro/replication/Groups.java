package dev.gyro.replication;

import dev.gyro.protocol.Value;
import dev.gyro.runtime.db.Database;
import dev.gyro.runtime.db.MetadataStore;
import dev.gyro.runtime.db.SqliteDialect;
import dev.gyro.servers.FreePorts;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Test helpers: a group of replicas on real SQLite files and loopback ports, a small order schema, table dumps. */
final class Groups {

    static final String CLUSTER = "test-cluster";
    /** The longest a test waits for an event (a leader, an index applied): a bound for a failing run, not a pause. */
    static final Duration WAIT = Duration.ofSeconds(30);
    /** Tables compared between replicas: the application's and Gyro's metadata (not gyro_replica: it names its replica). */
    static final List<String> COMPARED = List.of("orders", "totals", "gyro_state", "gyro_outbox");

    private Groups() {}

    static GroupSpec spec(int position, int replicas, Duration commitTimeout) throws IOException {
        List<InetSocketAddress> addresses = new ArrayList<>();
        for (int port : FreePorts.take(replicas)) addresses.add(new InetSocketAddress("127.0.0.1", port));
        return GroupSpec.of(CLUSTER, position, addresses).withCommitTimeout(commitTimeout);
    }

    /** One SQLite file per replica with the schema in place (schema changes do not travel through the log). */
    static List<String> databases(Path dir, int replicas) throws SQLException {
        List<String> files = new ArrayList<>();
        for (int i = 0; i < replicas; i++) {
            String file = dir.resolve("replica-" + i + ".db").toString();
            try (Database db = Database.open(SqliteDialect.INSTANCE, file)) {
                db.inTransaction(false, c -> {
                    try (Statement st = c.createStatement()) {
                        st.executeUpdate("CREATE TABLE orders (id INTEGER PRIMARY KEY, amount INTEGER NOT NULL)");
                        st.executeUpdate("CREATE TABLE totals (id INTEGER PRIMARY KEY, n INTEGER NOT NULL,"
                                + " total INTEGER NOT NULL)");
                        st.executeUpdate("INSERT INTO totals VALUES (1, 0, 0)");
                    }
                    MetadataStore.createTables(c);
                    return null;
                });
            }
            files.add(file);
        }
        return files;
    }

    /**
     * Order {@code id}: the application's writes (an order and the running totals, which read what earlier orders
     * wrote), then the runtime's metadata for it as a global request of gsn {@code id} of ring position 0 (the first
     * order also records the initial state, holding the token).
     */
    static GroupWork<Long> order(long id) {
        return tx -> {
            Connection c = tx.connection();
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO orders (id, amount) VALUES (?, ?)")) {
                ps.setLong(1, id);
                ps.setLong(2, id * 10);
                ps.executeUpdate();
            }
            try (PreparedStatement ps = c.prepareStatement("UPDATE totals SET n = n + 1, total = total + ? WHERE id = 1")) {
                ps.setLong(1, id * 10);
                ps.executeUpdate();
            }
            long gsn = MetadataStore.load(tx.metadata(), 0).lastGsn() + 1;
            MetadataStore.recordGlobal(tx.metadata(), new dev.gyro.protocol.StateUpdate(gsn, 0, List.of()));
            return gsn;
        };
    }

    /** Every compared table of {@code db}, row by row in key order. */
    static Map<String, List<List<Value>>> contents(Database db) throws SQLException {
        Map<String, List<List<Value>>> all = new LinkedHashMap<>();
        for (String table : COMPARED) all.put(table, dump(db, "SELECT * FROM " + table + " ORDER BY 1"));
        return all;
    }

    static List<List<Value>> dump(Database db, String query) throws SQLException {
        return db.inTransaction(true, c -> {
            List<List<Value>> rows = new ArrayList<>();
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(query)) {
                ResultSetMetaData md = rs.getMetaData();
                while (rs.next()) {
                    List<Value> row = new ArrayList<>();
                    for (int i = 1; i <= md.getColumnCount(); i++) row.add(db.dialect().toValue(rs.getObject(i)));
                    rows.add(row);
                }
            }
            return rows;
        });
    }

    static long single(Database db, String query) throws SQLException {
        return db.inTransaction(true, c -> {
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(query)) {
                if (!rs.next()) throw new SQLException("no row: " + query);
                return rs.getLong(1);
            }
        });
    }
}
