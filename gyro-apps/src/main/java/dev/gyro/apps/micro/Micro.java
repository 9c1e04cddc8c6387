package dev.gyro.apps.micro;

import dev.gyro.app.Application;
import dev.gyro.app.Audit;
import dev.gyro.app.Call;
import dev.gyro.app.Classification;
import dev.gyro.app.ClientSession;
import dev.gyro.app.Homing;
import dev.gyro.app.LoadProgress;
import dev.gyro.app.Sharding;
import dev.gyro.app.Transaction;
import dev.gyro.app.Workload;
import dev.gyro.app.WorkloadOptions;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The synthetic micro-benchmark of the paper's Section VII-B: operations whose share of local requests is a
 * parameter (0 to 100%), each with a fixed execution time (5 ms in the paper), optionally void (processed by Gyro,
 * never sent to the database) to measure pure coordination cost.
 *
 * <p>Data: MICRO_ROWS and MICRO_PARTITION hold each partition's own counters (local); MICRO_SHARED holds rows every
 * partition's global operations write (replicated), with the total of all global operations in row 0.
 */
public final class Micro implements Application {

    public static final String NAME = "micro";

    /** Partitions the clients spread over, per unit of scale. */
    public static final int PARTITIONS_PER_SCALE = 1000;
    /** Shared rows per unit of scale (besides the total, row 0). */
    public static final int SHARED_PER_SCALE = 100;

    static final String[] SCHEMA = {
        "CREATE TABLE IF NOT EXISTS MICRO_ROWS (MR_PARTITION BIGINT NOT NULL, MR_KEY INTEGER NOT NULL, "
                + "MR_VALUE BIGINT NOT NULL, PRIMARY KEY (MR_PARTITION, MR_KEY))",
        "CREATE TABLE IF NOT EXISTS MICRO_PARTITION (MP_PARTITION BIGINT NOT NULL PRIMARY KEY, MP_OPS BIGINT NOT NULL)",
        "CREATE TABLE IF NOT EXISTS MICRO_SHARED (MS_KEY INTEGER NOT NULL PRIMARY KEY, MS_VALUE BIGINT NOT NULL)",
    };

    static final String INSERT_SHARED = "INSERT INTO MICRO_SHARED (MS_KEY, MS_VALUE) VALUES (?, 0)";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<Transaction> transactions() {
        return List.of(new LocalOp(), new GlobalOp(), new VoidLocal(), new VoidGlobal());
    }

    @Override
    public void createSchema(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            for (String ddl : SCHEMA) s.executeUpdate(ddl);
        }
    }

    @Override
    public Classification classification() {
        return Classification.resource(Micro.class);
    }

    @Override
    public List<String> replicatedTables() {
        return List.of("MICRO_SHARED");
    }

    /** Sharded deployments (the 2pc and ShardingSphere baselines): a partition's rows on the instance owning the partition; the shared rows, which global operations write, everywhere. */
    @Override
    public Sharding sharding() {
        return new Sharding(Map.of("MICRO_ROWS", "MR_PARTITION", "MICRO_PARTITION", "MP_PARTITION"),
                List.of("MICRO_SHARED"));
    }

    @Override
    public String describeScale(int scale) {
        return scale * PARTITIONS_PER_SCALE + " partitions, " + scale * SHARED_PER_SCALE + " shared rows";
    }

    /** The shared rows, all zero; partitions' rows appear with their first operation. */
    @Override
    public void load(Connection c, int scale, long seed, LoadProgress progress) throws SQLException {
        int shared = scale * SHARED_PER_SCALE;
        try (PreparedStatement ps = c.prepareStatement(INSERT_SHARED)) {
            for (int k = 0; k <= shared; k++) {
                ps.setInt(1, k);
                ps.addBatch();
            }
            ps.executeBatch();
        }
        progress.update(1, "MICRO_SHARED " + (shared + 1) + " rows");
    }

    @Override
    public boolean isLoaded(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM MICRO_SHARED")) {
            return rs.next() && rs.getLong(1) > 0;
        }
    }

    @Override
    public Audit audit(int scale, long seed) {
        return new MicroAudit();
    }

    /**
     * Options: {@code local} (percent of local operations, 0-100, default 90), {@code service-ms} (execution time of
     * every operation, default 5), {@code void} (operations send no SQL, default false), {@code think-ms} (pause
     * between a session's operations, default 0).
     */
    @Override
    public Workload workload(int scale, WorkloadOptions options) {
        options.requireOnly(NAME, Set.of("local", "service-ms", "void", "think-ms"));
        double localShare = options.doubleValue("local", 90, 0, 100) / 100.0;
        int serviceMillis = (int) options.longValue("service-ms", 5, 0, 60_000);
        boolean isVoid = options.flag("void", false);
        long think = options.longValue("think-ms", 0, 0, 3_600_000);
        int partitions = scale * PARTITIONS_PER_SCALE;
        int shared = scale * SHARED_PER_SCALE;
        return new Workload() {
            public String describe() {
                return String.format("%.0f%% local, %d ms per operation%s, think %d ms", localShare * 100,
                        serviceMillis, isVoid ? ", void (no SQL)" : "", think);
            }

            public ClientSession newSession(int index, SplittableRandom random) {
                return newSession(index, random, Homing.ANYWHERE);
            }

            /** Every operation's partition is home: the client picks it, local and global alike. */
            public ClientSession newSession(int index, SplittableRandom random, Homing homing) {
                return previous -> {
                    long partition = homing.draw(() -> 1 + random.nextInt(partitions));
                    boolean local = random.nextDouble() < localShare;
                    Call call;
                    if (isVoid) call = local ? Call.of("voidLocal", partition, serviceMillis)
                            : Call.of("voidGlobal", partition, serviceMillis);
                    else if (local) call = Call.of("localOp", partition, 1 + random.nextInt(10), serviceMillis);
                    else call = Call.of("globalOp", partition, 1 + random.nextInt(shared), serviceMillis);
                    return call.afterThinking(think);
                };
            }
        };
    }

    /**
     * The operation's fixed execution time. Sleeping is not reading a clock: the request's behaviour still depends
     * only on its parameters. On SQLite a read-write request holds the single write lock while it sleeps, as a
     * DBMS busy with one transaction would.
     */
    static void serve(int serviceMillis) {
        if (serviceMillis <= 0) return;
        try {
            Thread.sleep(serviceMillis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while serving", e);
        }
    }
}
