package dev.gyro.replication;

import dev.gyro.protocol.Value;
import dev.gyro.runtime.db.Database;
import dev.gyro.runtime.db.MetadataStore;
import dev.gyro.runtime.db.Dialect;
import dev.gyro.runtime.db.SqliteDialect;
import dev.gyro.servers.FreePorts;
import dev.gyro.servers.ServerKind;
import dev.gyro.servers.ThrowawayServers;
import dev.gyro.wire.Transport;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

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
        return GroupSpec.of(CLUSTER, position, addresses, Transport.insecure()).withCommitTimeout(commitTimeout);
    }

    /** One SQLite file per replica with the schema in place (schema changes do not travel through the log). */
    static List<String> databases(Path dir, int replicas) throws SQLException {
        List<String> files = new ArrayList<>();
        for (int i = 0; i < replicas; i++) files.add(dir.resolve("replica-" + i + ".db").toString());
        return withSchema(files);
    }

    /**
     * One database per replica on {@code backend}: SQLite files under {@code dir}, or fresh databases on a throwaway
     * PostgreSQL or MariaDB server (the test is skipped when the server's programs are missing, failed under CI=true).
     */
    static List<String> databases(String backend, Path dir, int replicas) throws SQLException {
        if (backend.equals("sqlite")) return databases(dir, replicas);
        ServerKind kind = ServerKind.parse(backend);
        String missing = kind.unavailableReason();
        if (missing != null) {
            if ("true".equalsIgnoreCase(System.getenv("CI")))
                Assertions.fail("CI=true and the " + backend + " backend cannot be tested: " + missing);
            Assumptions.abort("skipped: " + missing + " (with CI=true this fails)");
        }
        List<String> urls = new ArrayList<>();
        for (int i = 0; i < replicas; i++) urls.add(ThrowawayServers.freshDatabase(kind, 0));
        return withSchema(urls);
    }

    private static List<String> withSchema(List<String> targets) throws SQLException {
        for (String target : targets) {
            Dialect dialect = Dialect.forTarget(target);
            try (Database db = Database.open(dialect, target)) {
                db.inTransaction(false, c -> {
                    try (Statement st = c.createStatement()) {
                        st.executeUpdate("CREATE TABLE orders (id BIGINT PRIMARY KEY, amount BIGINT NOT NULL)");
                        st.executeUpdate("CREATE TABLE totals (id BIGINT PRIMARY KEY, n BIGINT NOT NULL,"
                                + " total BIGINT NOT NULL)");
                        st.executeUpdate("INSERT INTO totals VALUES (1, 0, 0)");
                    }
                    return null;
                });
                db.inTransaction(false, c -> { // DDL commits by itself on MariaDB: a transaction of its own
                    MetadataStore.createTables(c);
                    return null;
                });
            }
        }
        return targets;
    }

    /** The schema on a database that may hold it already: what a rebuilt replica's copy is made in. */
    static Object schema(Connection c) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.executeUpdate("CREATE TABLE IF NOT EXISTS orders (id BIGINT PRIMARY KEY, amount BIGINT NOT NULL)");
            st.executeUpdate("CREATE TABLE IF NOT EXISTS totals (id BIGINT PRIMARY KEY, n BIGINT NOT NULL,"
                    + " total BIGINT NOT NULL)");
        }
        MetadataStore.createTables(c);
        return null;
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
