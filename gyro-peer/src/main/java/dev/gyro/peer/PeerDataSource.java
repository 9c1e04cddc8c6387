package dev.gyro.peer;

import dev.gyro.app.Sharding;
import dev.gyro.bench.sharded.ShardedDatabases;
import dev.gyro.cluster.Backend;
import org.apache.shardingsphere.driver.api.ShardingSphereDataSourceFactory;
import org.apache.shardingsphere.infra.config.algorithm.AlgorithmConfiguration;
import org.apache.shardingsphere.infra.config.rule.RuleConfiguration;
import org.apache.shardingsphere.sharding.api.config.ShardingRuleConfiguration;
import org.apache.shardingsphere.sharding.api.config.rule.ShardingTableRuleConfiguration;
import org.apache.shardingsphere.sharding.api.config.strategy.sharding.NoneShardingStrategyConfiguration;
import org.apache.shardingsphere.sharding.api.config.strategy.sharding.StandardShardingStrategyConfiguration;
import org.apache.shardingsphere.transaction.config.TransactionRuleConfiguration;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.StringJoiner;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The peer's ShardingSphere-JDBC 5.3.2 data source over a {@link ShardedDatabases}, built with the Java API as
 * ShardingSphere's documentation describes an XA deployment:
 *
 * <ul>
 *   <li>one ordinary connection pool (HikariCP) per instance, {@code ds_0 .. ds_(n-1)}, every connection
 *       SERIALIZABLE; ShardingSphere derives each instance's XA data source from the pool's URL and user, and
 *       wraps a pooled connection as an XA connection the first time a transaction uses that instance;</li>
 *   <li>one sharding rule per sharded table: its rows on {@code ds_i} by {@link PartitionMapShardingAlgorithm}
 *       (CLASS_BASED, STANDARD) on the table's sharding column, one actual table per data source;</li>
 *   <li>the replicated tables as broadcast tables: read from one instance, written on all;</li>
 *   <li>XA transactions managed by Atomikos as the default transaction type.</li>
 * </ul>
 *
 * <p>Why not Atomikos's own XA pool ({@code AtomikosDataSourceBean}, which ShardingSphere also accepts): Atomikos
 * then ends an instance's XA branch when a connection is released and re-joins it ({@code XA START ... JOIN}) when
 * the transaction touches that instance again, which PostgreSQL does not support ("resume for XID raised -3" under
 * load). ShardingSphere's own path keeps one XA branch per instance per transaction.
 *
 * <p>On MariaDB, ShardingSphere 5.3.2 builds the XA connection from classes of MariaDB Connector/J 2.x
 * ({@code org.mariadb.jdbc.MariaDbConnection}, {@code MariaXaConnection}), which 3.x no longer has: gyro-peer's
 * class path carries the 2.7.12 client (see the README), and {@link #open} says so when it finds another.
 *
 * <p>Atomikos is one transaction service per JVM; its log goes under the deployment's directory, and one peer
 * data source at a time may be open in a JVM.
 */
final class PeerDataSource implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PeerDataSource.class);
    static final String PREFIX = "ds_";
    private static final AtomicInteger DEPLOYMENTS = new AtomicInteger();
    private static final Object OPEN_LOCK = new Object();
    private static PeerDataSource open; // guarded by OPEN_LOCK: Atomikos is one service per JVM

    private final DataSource sharded;
    private final List<HikariDataSource> pools;
    private final List<String> dataSourceNames;

    private PeerDataSource(DataSource sharded, List<HikariDataSource> pools, List<String> names) {
        this.sharded = sharded;
        this.pools = pools;
        this.dataSourceNames = names;
    }

    /**
     * @param poolSize connections per instance (a transaction holds one connection on each instance it touches)
     * @param logDir   where Atomikos writes its transaction log
     */
    static PeerDataSource open(ShardedDatabases dbs, int poolSize, Path logDir) throws SQLException {
        synchronized (OPEN_LOCK) {
            if (open != null)
                throw new IllegalStateException("a peer deployment is already open in this JVM: Atomikos runs one "
                        + "transaction service per JVM, close the other deployment first");
            if (dbs.backend() == Backend.MARIADB) requireMariaDbClient2();
            int id = DEPLOYMENTS.incrementAndGet();
            configureAtomikos(logDir);
            List<HikariDataSource> pools = new ArrayList<>();
            List<String> names = new ArrayList<>();
            Map<String, DataSource> byName = new LinkedHashMap<>();
            try {
                for (int i = 0; i < dbs.size(); i++) {
                    HikariDataSource pool = pool(dbs.backend(), dbs.jdbcUrl(i), "gyro-peer-" + id + "-" + PREFIX + i,
                            poolSize);
                    pools.add(pool);
                    names.add(PREFIX + i);
                    byName.put(PREFIX + i, pool);
                }
                List<RuleConfiguration> rules = List.of(shardingRule(dbs.sharding(), dbs.backend(), dbs.size()),
                        new TransactionRuleConfiguration("XA", "Atomikos", new Properties()));
                // A fresh logical database name per deployment: ShardingSphere's standalone mode keeps metadata in a
                // JVM-wide in-memory repository keyed by that name.
                DataSource ds = ShardingSphereDataSourceFactory.createDataSource("gyro_peer_" + id, byName, rules,
                        ssProps());
                PeerDataSource p = new PeerDataSource(ds, pools, names);
                warmUp(ds, dbs.sharding());
                open = p;
                return p;
            } catch (SQLException | RuntimeException e) {
                for (HikariDataSource p : pools) p.close();
                throw e;
            }
        }
    }

    /** {@code -Dgyro.peer.sql-show=true} logs every statement ShardingSphere routes, with its data sources. */
    private static Properties ssProps() {
        Properties p = new Properties();
        if (Boolean.getBoolean("gyro.peer.sql-show")) p.setProperty("sql-show", "true");
        return p;
    }

    /**
     * Parses, routes and runs one statement, so that the first call of a measured run does not pay for loading
     * ShardingSphere's SQL parser (seconds on a busy 2-core machine).
     */
    private static void warmUp(DataSource ds, Sharding sharding) throws SQLException {
        String table = sharding.tables().get(0);
        try (Connection c = ds.getConnection(); var s = c.createStatement();
             var rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
        }
    }

    /** ShardingSphere 5.3.2's MariaDB XA support needs Connector/J 2.x classes (see the class comment). */
    private static void requireMariaDbClient2() {
        try {
            Class.forName("org.mariadb.jdbc.MariaXaConnection");
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("the peer on mariadb needs MariaDB Connector/J 2.x (ShardingSphere 5.3.2 "
                    + "wraps XA connections with its org.mariadb.jdbc.MariaXaConnection), but the class path has "
                    + "version " + org.mariadb.jdbc.Driver.class.getPackage().getImplementationVersion()
                    + "; put mariadb-java-client 2.7.12 on it (gyro-peer/README.md)");
        }
    }

    /** Atomikos reads system properties when its service starts; they override ShardingSphere's defaults. */
    private static void configureAtomikos(Path logDir) {
        try {
            Files.createDirectories(logDir);
        } catch (java.io.IOException e) {
            throw new IllegalStateException("cannot create the Atomikos log directory " + logDir + ": " + e, e);
        }
        // Default: ./logs of the working directory, shared (and locked) by every JVM started there.
        System.setProperty("com.atomikos.icatch.log_base_dir", logDir.toAbsolutePath().toString());
        // A benchmark may run more concurrent transactions than Atomikos's default 50 (ShardingSphere sets 10000).
        System.setProperty("com.atomikos.icatch.max_actives", "-1");
    }

    /**
     * How long a statement waits for a row lock before it fails (and the call runs again). No single server sees a
     * deadlock between two XA transactions that lock rows on two shards in opposite orders; without a bound they
     * wait out MariaDB's 50 s default, or forever on PostgreSQL. Every XA deployment sets one.
     */
    static final int LOCK_WAIT_SECONDS = 1;

    private static HikariDataSource pool(Backend backend, String jdbcUrl, String name, int size) {
        HikariConfig config = new HikariConfig();
        config.setConnectionInitSql(backend == Backend.POSTGRES ? "SET lock_timeout = '" + LOCK_WAIT_SECONDS + "s'"
                : "SET SESSION innodb_lock_wait_timeout = " + LOCK_WAIT_SECONDS);
        config.setPoolName(name);
        config.setJdbcUrl(jdbcUrl);
        // ShardingSphere describes each storage unit by URL, user name and password, and builds its XA data source
        // from them: the password in the URL alone does not reach it (the throwaway servers ask for one).
        config.setUsername(parameterOf(jdbcUrl, "user"));
        config.setPassword(parameterOf(jdbcUrl, "password"));
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(1);
        config.setTransactionIsolation("TRANSACTION_SERIALIZABLE");
        return new HikariDataSource(config);
    }

    /** The parameter {@code name} of a URL, or null (the throwaway servers' URLs carry the user and password there). */
    static String parameterOf(String url, String name) {
        int q = url.indexOf('?');
        if (q >= 0)
            for (String kv : url.substring(q + 1).split("&"))
                if (kv.startsWith(name + "=")) return kv.substring(name.length() + 1);
        return null;
    }

    /** One rule per sharded table, the replicated ones broadcast; table names as the backend stores them. */
    static ShardingRuleConfiguration shardingRule(Sharding sharding, Backend backend, int instances) {
        ShardingRuleConfiguration rule = new ShardingRuleConfiguration();
        Properties props = new Properties();
        props.setProperty(PartitionMapShardingAlgorithm.INSTANCES, Integer.toString(instances));
        props.setProperty(PartitionMapShardingAlgorithm.PREFIX, PREFIX);
        props.setProperty("strategy", "STANDARD");
        props.setProperty("algorithmClassName", PartitionMapShardingAlgorithm.class.getName());
        rule.getShardingAlgorithms().put("partition_map", new AlgorithmConfiguration("CLASS_BASED", props));
        for (var e : sharding.shardedBy().entrySet()) {
            StringJoiner nodes = new StringJoiner(",");
            for (int i = 0; i < instances; i++) nodes.add(PREFIX + i + "." + stored(backend, e.getKey()));
            ShardingTableRuleConfiguration table = new ShardingTableRuleConfiguration(e.getKey(), nodes.toString());
            table.setDatabaseShardingStrategy(new StandardShardingStrategyConfiguration(e.getValue(), "partition_map"));
            table.setTableShardingStrategy(new NoneShardingStrategyConfiguration());
            rule.getTables().add(table);
        }
        rule.getBroadcastTables().addAll(sharding.replicated());
        return rule;
    }

    /** PostgreSQL folds unquoted names to lower case; MariaDB on Linux keeps them as created. */
    private static String stored(Backend backend, String table) {
        return backend == Backend.POSTGRES ? table.toLowerCase(Locale.ROOT) : table;
    }

    DataSource dataSource() {
        return sharded;
    }

    List<String> dataSourceNames() {
        return dataSourceNames;
    }

    @Override
    public void close() {
        try {
            if (sharded instanceof AutoCloseable c) c.close();
        } catch (Exception e) {
            log.warn("closing the ShardingSphere data source failed: {}", e.toString());
        } finally {
            for (HikariDataSource p : pools) p.close();
            synchronized (OPEN_LOCK) {
                if (open == this) open = null;
            }
        }
    }
}
