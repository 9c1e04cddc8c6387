package dev.gyro.bench.sharded;

import dev.gyro.app.Application;
import dev.gyro.app.Sharding;
import dev.gyro.bench.SystemUnderTest;
import dev.gyro.protocol.PartitionMap;
import dev.gyro.protocol.Value;
import dev.gyro.cluster.Backend;
import dev.gyro.cluster.LocalCluster;
import dev.gyro.check.ReplicaCheck;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.IntConsumer;

/**
 * The databases of a sharded deployment (the 2pc and ShardingSphere baselines): N databases of one
 * backend, each holding the replicated tables whole and, of every sharded table, only the rows whose sharding
 * column's value it owns under {@link PartitionMap#uniform(int)} (the map that routes Gyro's requests, so a row
 * lives where Gyro would run the local requests that write it).
 *
 * <p>Created by loading the application's full initial data on each database, as Gyro's are, then deleting from
 * each one the sharded rows it does not own. Checked by {@link #check()}: placement, replica equality, and the
 * application's audit over the union of the shards.
 */
public final class ShardedDatabases implements AutoCloseable {

    private final LocalCluster databases; // created and loaded, never started: no Gyro runs on them
    private final Application app;
    private final Sharding sharding;
    private final PartitionMap map;
    private final int scale;
    private final long seed;

    private ShardedDatabases(LocalCluster databases, SystemUnderTest.Setup setup, Sharding sharding) {
        this.databases = databases;
        this.app = setup.app();
        this.sharding = sharding;
        this.map = PartitionMap.uniform(databases.size());
        this.scale = setup.scale();
        this.seed = setup.seed();
    }

    /**
     * Creates, loads and shards {@code setup.instances()} databases under {@code setup.dir()}.
     *
     * @param progress told the number of databases loaded so far
     * @throws UnsupportedOperationException when the application declares no sharding
     * @throws IllegalStateException         when its sharding leaves out one of its tables
     */
    public static ShardedDatabases create(SystemUnderTest.Setup setup, IntConsumer progress) throws Exception {
        Sharding sharding = setup.app().sharding();
        LocalCluster c = setup.createDatabases(setup.app(), setup.instances(), progress);
        ShardedDatabases s = new ShardedDatabases(c, setup, sharding);
        try {
            for (int i = 0; i < c.size(); i++) s.prune(i);
            return s;
        } catch (Exception | Error e) {
            c.close();
            throw e;
        }
    }

    public int size() {
        return databases.size();
    }

    public PartitionMap map() {
        return map;
    }

    public Sharding sharding() {
        return sharding;
    }

    public Backend backend() {
        return databases.backend();
    }

    public Application app() {
        return app;
    }

    /** The JDBC URL of database {@code i} (credentials included where the server needs them). */
    public String jdbcUrl(int i) {
        return databases.jdbcUrl(i);
    }

    /** A plain connection to database {@code i}, in auto-commit mode. */
    public Connection connect(int i) throws SQLException {
        return databases.connect(i);
    }

    /** Which database a sharded row belongs on. */
    public int shardOf(Object shardingValue) {
        return map.instanceOf(Value.of(shardingValue));
    }

    private void prune(int i) throws SQLException {
        try (Connection c = connect(i)) {
            Set<String> present = userTables(c);
            Set<String> missing = new TreeSet<>(present);
            sharding.tables().forEach(missing::remove);
            if (!missing.isEmpty())
                throw new IllegalStateException("application " + app.name() + "'s sharding places no rows of "
                        + String.join(", ", missing) + ": every table must be sharded or replicated");
            c.setAutoCommit(false);
            for (var e : sharding.shardedBy().entrySet()) {
                List<Object> foreign = new ArrayList<>();
                try (Statement s = c.createStatement();
                     ResultSet rs = s.executeQuery("SELECT DISTINCT " + e.getValue() + " FROM " + e.getKey())) {
                    while (rs.next()) {
                        Object v = rs.getObject(1);
                        if (shardOf(v) != i) foreign.add(v);
                    }
                }
                try (PreparedStatement ps = c.prepareStatement(
                        "DELETE FROM " + e.getKey() + " WHERE " + e.getValue() + " = ?")) {
                    for (Object v : foreign) {
                        ps.setObject(1, v);
                        ps.addBatch();
                    }
                    if (!foreign.isEmpty()) ps.executeBatch();
                }
            }
            c.commit();
        }
    }

    /** The application's tables in a database: everything but Gyro's own metadata. */
    static Set<String> userTables(Connection c) throws SQLException {
        Set<String> out = new TreeSet<>();
        String catalog = c.getCatalog();
        String schema = c.getSchema();
        try (ResultSet rs = c.getMetaData().getTables(catalog, schema, "%", new String[] {"TABLE"})) {
            while (rs.next()) {
                String t = rs.getString("TABLE_NAME").toUpperCase(Locale.ROOT);
                if (!t.startsWith("GYRO_") && !t.startsWith("SQLITE_")) out.add(t);
            }
        }
        return out;
    }

    /**
     * Checks a run's end state: every sharded row on the database that owns it, every replicated table equal on
     * every database, and the application's audit over the union of the shards (gathered into one in-memory
     * SQLite database, so the audit sees the application's data whole, as on a centralized server).
     *
     * @return the problems, in words; empty when the state is valid
     */
    public List<String> check() throws SQLException {
        List<String> problems = new ArrayList<>();
        List<Connection> shards = new ArrayList<>();
        try {
            for (int i = 0; i < size(); i++) shards.add(connect(i));
            for (int i = 0; i < size(); i++) {
                for (var e : sharding.shardedBy().entrySet()) {
                    try (Statement s = shards.get(i).createStatement();
                         ResultSet rs = s.executeQuery("SELECT DISTINCT " + e.getValue() + " FROM " + e.getKey())) {
                        while (rs.next()) {
                            int owner = shardOf(rs.getObject(1));
                            if (owner != i) {
                                problems.add("table " + e.getKey() + ": rows with " + e.getValue() + " = "
                                        + rs.getObject(1) + " are on database " + i + " but belong on " + owner);
                                break;
                            }
                        }
                    }
                }
            }
            for (String table : sharding.replicated()) {
                ReplicaCheck.TableDigest first = ReplicaCheck.digest(shards.get(0), table, 0);
                for (int i = 1; i < size(); i++) {
                    ReplicaCheck.TableDigest d = ReplicaCheck.digest(shards.get(i), table, i);
                    if (d.rows() != first.rows() || !d.sha256().equals(first.sha256()))
                        problems.add("replicated table " + table + " differs: database 0 has " + first.rows()
                                + " rows, database " + i + " has " + d.rows());
                }
            }
            try (Connection union = DriverManager.getConnection("jdbc:sqlite::memory:")) {
                gather(shards, union);
                problems.addAll(app.audit(scale, seed).check(List.of(union), PartitionMap.uniform(1)));
            }
        } finally {
            for (Connection c : shards) c.close();
        }
        return problems;
    }

    /** Copies the replicated tables from database 0 and every database's sharded rows into {@code union}. */
    private void gather(List<Connection> shards, Connection union) throws SQLException {
        union.setAutoCommit(false);
        app.createSchema(union);
        union.commit();
        for (String table : sharding.tables()) {
            List<Connection> from = sharding.isReplicated(table) ? shards.subList(0, 1) : shards;
            for (Connection c : from) copy(c, union, table);
        }
        union.commit();
    }

    private static void copy(Connection from, Connection to, String table) throws SQLException {
        try (Statement s = from.createStatement(); ResultSet rs = s.executeQuery("SELECT * FROM " + table)) {
            ResultSetMetaData md = rs.getMetaData();
            int n = md.getColumnCount();
            StringBuilder sql = new StringBuilder("INSERT INTO " + table + " (");
            for (int i = 1; i <= n; i++) sql.append(i > 1 ? ", " : "").append(md.getColumnName(i));
            sql.append(") VALUES (").append("?, ".repeat(n - 1)).append("?)");
            try (PreparedStatement ps = to.prepareStatement(sql.toString())) {
                while (rs.next()) {
                    for (int i = 1; i <= n; i++) ps.setObject(i, rs.getObject(i));
                    ps.addBatch();
                }
                ps.executeBatch();
            }
        }
    }

    @Override
    public void close() {
        databases.close();
    }
}
