package dev.gyro.peer;

import dev.gyro.apps.micro.Micro;
import dev.gyro.apps.tpcw.Tpcw;
import dev.gyro.bench.SystemUnderTest;
import dev.gyro.bench.Target;
import dev.gyro.app.Call;
import dev.gyro.app.Outcome;
import dev.gyro.bench.sharded.ShardedDatabases;
import dev.gyro.cluster.Backend;
import dev.gyro.emulation.Capacity;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A transaction through the peer that writes on two shards is atomic: committed, its rows are on both shards;
 * failed after writing to both (the application throws, or one shard's server session dies before the commit), its
 * rows are on neither, and no prepared branch is left behind.
 */
@Tag("servers")
class PeerTransactionsTest {

    /** One micro-benchmark operation's rows for a new partition (both, so that the application's audit holds). */
    private static final String INSERT = "INSERT INTO MICRO_PARTITION (MP_PARTITION, MP_OPS) VALUES (?, 1)";
    private static final String INSERT_ROW = "INSERT INTO MICRO_ROWS (MR_PARTITION, MR_KEY, MR_VALUE) VALUES (?, 1, 1)";

    @ParameterizedTest
    @EnumSource(value = Backend.class, names = {"POSTGRES", "MARIADB"})
    void aTwoShardTransactionCommitsOnBothOrNeither(Backend backend) throws Exception {
        PeerRuns.require(backend);
        SystemUnderTest.Setup setup = PeerRuns.setup(new Micro(), backend, "atomic", 1);
        try (ShardedDatabases dbs = ShardedDatabases.create(setup, n -> {});
             PeerDataSource peer = PeerDataSource.open(dbs, 4, setup.dir().resolve("atomikos"))) {
            long[] on0 = partitionsOn(dbs, 0, 3), on1 = partitionsOn(dbs, 1, 3);

            try (Connection c = peer.dataSource().getConnection()) {
                c.setAutoCommit(false);
                insert(c, on0[0]);
                insert(c, on1[0]);
                c.commit();
            }
            assertThat(exists(dbs, 0, on0[0])).as("committed row on shard 0").isTrue();
            assertThat(exists(dbs, 1, on1[0])).as("committed row on shard 1").isTrue();

            try (Connection c = peer.dataSource().getConnection()) {
                c.setAutoCommit(false);
                insert(c, on0[1]);
                insert(c, on1[1]);
                c.rollback(); // what PeerTarget does when the transaction's code throws
            }
            assertThat(exists(dbs, 0, on0[1]) || exists(dbs, 1, on1[1])).as("rolled-back rows").isFalse();

            Connection c = peer.dataSource().getConnection();
            c.setAutoCommit(false);
            insert(c, on0[2]);
            insert(c, on1[2]);
            killSessionHoldingTheTransaction(dbs, 1, backend);
            assertThatThrownBy(c::commit).as("commit after shard 1 lost its session").isNotNull();
            try {
                c.close(); // fails too: shard 1's pooled connection is dead
            } catch (Exception expected) {
                // nothing to do: the transaction has already ended
            }
            assertThat(exists(dbs, 0, on0[2])).as("shard 0's part of a transaction whose shard 1 failed").isFalse();
            assertThat(exists(dbs, 1, on1[2])).as("shard 1's part of a failed transaction").isFalse();
            for (int i = 0; i < dbs.size(); i++)
                assertThat(preparedBranches(dbs, i, backend)).as("prepared XA branches left on " + i).isZero();
            assertThat(dbs.check()).isEmpty();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Backend.class, names = {"POSTGRES", "MARIADB"})
    void everyConnectionIsSerializable(Backend backend) throws Exception {
        PeerRuns.require(backend);
        SystemUnderTest.Setup setup = PeerRuns.setup(new Micro(), backend, "isolation", 1);
        String query = backend == Backend.POSTGRES ? "SELECT current_setting('transaction_isolation') FROM MICRO_SHARED WHERE MS_KEY = 0"
                : "SELECT @@tx_isolation FROM MICRO_SHARED WHERE MS_KEY = 0";
        try (ShardedDatabases dbs = ShardedDatabases.create(setup, n -> {});
             PeerDataSource peer = PeerDataSource.open(dbs, 4, setup.dir().resolve("atomikos"));
             Connection c = peer.dataSource().getConnection()) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(query)) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1).replace('-', ' ')).isEqualToIgnoringCase("serializable");
            }
            c.commit();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Backend.class, names = {"POSTGRES"})
    void aTransactionThePeerCannotRunFailsWithTheStatementAndTheReason(Backend backend) throws Exception {
        PeerRuns.require(backend);
        SystemUnderTest.Setup setup = PeerRuns.setup(new Tpcw(new Tpcw.Size(50, 50)), backend, "unsupported", 1);
        try (SystemUnderTest.Deployment d = new ShardingSphereSystem().deploy(setup)) {
            Target.Result r = d.target().open().execute(Call.of("createEmptyCart"));
            assertThat(r.outcome().status()).isEqualTo(Outcome.Status.FAILED);
            assertThat(r.outcome().message()).contains("cannot run createEmptyCart")
                    .contains("SELECT COALESCE(MAX(SC_ID), 0) + 1 FROM SHOPPING_CART").contains("not merged");
            assertThat(r.executedAs()).isEqualTo(PeerTarget.UNSUPPORTED);
        }
    }

    @Test
    void sqliteIsRefusedBecauseItHasNoXa(@TempDir Path dir) {
        SystemUnderTest.Setup setup = new SystemUnderTest.Setup(new Micro(), dir, 3, 1, 1, Capacity.PLAIN,
                Backend.SQLITE);
        assertThatThrownBy(() -> new ShardingSphereSystem().deploy(setup))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cannot run on sqlite").hasMessageContaining("SQLite has no XA");
    }

    /** {@code n} partition numbers whose rows belong on database {@code shard}. */
    private static long[] partitionsOn(ShardedDatabases dbs, int shard, int n) {
        long[] out = new long[n];
        int found = 0;
        for (long p = 1_000_000; found < n; p++) if (dbs.shardOf(p) == shard) out[found++] = p;
        return out;
    }

    private static void insert(Connection c, long partition) throws Exception {
        for (String sql : new String[] {INSERT, INSERT_ROW})
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setLong(1, partition);
                assertThat(ps.executeUpdate()).isEqualTo(1);
            }
    }

    private static boolean exists(ShardedDatabases dbs, int shard, long partition) throws Exception {
        try (Connection c = dbs.connect(shard);
             PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM MICRO_PARTITION WHERE MP_PARTITION = ?")) {
            ps.setLong(1, partition);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1) > 0;
            }
        }
    }

    /** Ends, from outside, the server session in which the peer's open transaction wrote on database {@code shard}. */
    private static void killSessionHoldingTheTransaction(ShardedDatabases dbs, int shard, Backend backend)
            throws Exception {
        try (Connection c = dbs.connect(shard); Statement s = c.createStatement()) {
            String find = backend == Backend.POSTGRES
                    ? "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() "
                    + "AND state LIKE 'idle in transaction%' AND query LIKE 'INSERT INTO micro_rows%'"
                    : "SELECT trx_mysql_thread_id FROM information_schema.INNODB_TRX WHERE trx_rows_modified > 0 "
                    + "AND trx_state = 'RUNNING'";
            // An earlier transaction's rollback can still show for a moment (InnoDB rolls back in the background):
            // wait until exactly one session holds written rows.
            java.util.List<Long> sessions = new java.util.ArrayList<>();
            for (int attempt = 0; attempt < 50; attempt++) {
                sessions.clear();
                try (ResultSet rs = s.executeQuery(find)) {
                    while (rs.next()) sessions.add(rs.getLong(1));
                }
                if (sessions.size() == 1) break;
                Thread.sleep(100);
            }
            assertThat(sessions).as("exactly one writing session on database " + shard).hasSize(1);
            long session = sessions.get(0);
            s.execute(backend == Backend.POSTGRES ? "SELECT pg_terminate_backend(" + session + ")" : "KILL " + session);
        }
    }

    private static long preparedBranches(ShardedDatabases dbs, int shard, Backend backend) throws Exception {
        try (Connection c = dbs.connect(shard); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(backend == Backend.POSTGRES
                     ? "SELECT COUNT(*) FROM pg_prepared_xacts WHERE database = current_database()" : "XA RECOVER")) {
            if (backend == Backend.POSTGRES) {
                rs.next();
                return rs.getLong(1);
            }
            long n = 0;
            while (rs.next()) n++;
            return n;
        }
    }
}
