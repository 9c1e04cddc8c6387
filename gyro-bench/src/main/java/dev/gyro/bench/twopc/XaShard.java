package dev.gyro.bench.twopc;

import dev.gyro.cluster.Backend;
import dev.gyro.emulation.Capacity;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.xa.PGXADataSource;

import javax.sql.XAConnection;
import javax.sql.XADataSource;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;

/**
 * One shard of the 2pc baseline: its database's own XA interface (PostgreSQL's {@code PREPARE TRANSACTION}, MariaDB's
 * {@code XA PREPARE}, both behind JDBC's {@link XAResource}), a pool of XA connections, and the shard's emulated
 * server ({@link Capacity}).
 */
final class XaShard implements AutoCloseable {

    /** A lock wait this long is taken as a distributed deadlock, which no single database can see: retry. */
    static final int LOCK_TIMEOUT_SECONDS = 2;

    final int index;
    final Backend backend;
    final Capacity capacity;
    private final XADataSource source;
    private final ConcurrentLinkedDeque<XAConnection> idle = new ConcurrentLinkedDeque<>();
    private final List<XAConnection> all = new ArrayList<>();

    XaShard(int index, Backend backend, String jdbcUrl, Capacity capacity) throws SQLException {
        this.index = index;
        this.backend = backend;
        this.capacity = capacity;
        this.source = switch (backend) {
            case POSTGRES -> {
                PGXADataSource ds = new PGXADataSource();
                ds.setUrl(jdbcUrl);
                yield ds;
            }
            case MARIADB -> new MariaDbDataSource(jdbcUrl);
            case SQLITE -> throw new UnsupportedOperationException("SQLite has no prepared transactions (no XA), so the "
                    + "2pc baseline cannot commit across SQLite databases: run it with --backend postgres or mariadb");
        };
    }

    /** A branch of one distributed transaction on this shard. */
    final class Branch {
        final XAConnection xa;
        final Connection connection;
        final Xid xid;
        private boolean ended;

        private Branch(XAConnection xa, Xid xid) throws SQLException {
            this.xa = xa;
            this.connection = xa.getConnection();
            this.xid = xid;
        }

        private XAResource resource() throws SQLException {
            return xa.getXAResource();
        }

        private void end(int flags) throws XAException, SQLException {
            if (ended) return;
            ended = true;
            resource().end(xid, flags);
        }

        /** Phase one. @return false when the branch was read-only and is already finished */
        boolean prepare() throws XAException, SQLException {
            end(XAResource.TMSUCCESS);
            return resource().prepare(xid) != XAResource.XA_RDONLY;
        }

        void commitPrepared() throws XAException, SQLException {
            resource().commit(xid, false);
        }

        void commitOnePhase() throws XAException, SQLException {
            end(XAResource.TMSUCCESS);
            resource().commit(xid, true);
        }

        /** Rolls the branch back, prepared or not; never throws (a broken connection is dropped). */
        void rollback(boolean prepared) {
            try {
                if (!prepared) {
                    try {
                        end(XAResource.TMFAIL);
                    } catch (XAException e) {
                        // already ended by the failure itself: rollback below still applies
                    }
                }
                resource().rollback(xid);
            } catch (XAException | SQLException e) {
                if (e instanceof XAException x && x.errorCode == XAException.XAER_NOTA) return; // nothing to undo
                broken = true;
            }
        }

        private boolean broken;

        /** Back to the pool, or closed if broken. */
        void release() {
            if (broken) {
                closeQuietly(xa);
                return;
            }
            idle.push(xa);
        }
    }

    /**
     * Starts a branch of transaction {@code gtrid} here: spends the service time in a slot of the emulated server,
     * then XA START.
     *
     * <p>The slot is let go after the service time rather than held to the end of the transaction (as a Gyro
     * instance holds its own): a distributed transaction would otherwise hold a slot on one shard while waiting for
     * one on the next, in an order its data decides, and transactions taking them in opposite orders deadlock the
     * emulation itself (seen with RUBiS at 16 clients). Waiting for other shards is not server work; the choice
     * favours the baseline slightly, and the ShardingSphere peer makes the same one.
     */
    Branch begin(long gtrid) throws SQLException, InterruptedException {
        capacity.enter().close();
        XAConnection xa = null;
        try {
            xa = idle.poll();
            if (xa == null) xa = open();
            Branch b = new Branch(xa, new BranchXid(gtrid, index));
            b.resource().start(b.xid, XAResource.TMNOFLAGS);
            return b;
        } catch (XAException e) {
            closeQuietly(xa);
            throw new SQLException("XA START on shard " + index + " failed: " + e, e);
        } catch (SQLException | RuntimeException e) {
            if (xa != null) closeQuietly(xa);
            throw e;
        }
    }

    private XAConnection open() throws SQLException {
        XAConnection xa = source.getXAConnection();
        try (Connection c = xa.getConnection(); Statement s = c.createStatement()) {
            c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            s.execute(backend == Backend.POSTGRES ? "SET lock_timeout = '" + LOCK_TIMEOUT_SECONDS + "s'"
                    : "SET SESSION innodb_lock_wait_timeout = " + LOCK_TIMEOUT_SECONDS);
        }
        synchronized (all) {
            all.add(xa);
        }
        return xa;
    }

    private static void closeQuietly(XAConnection xa) {
        try {
            xa.close();
        } catch (SQLException ignored) {
            // dropped anyway
        }
    }

    @Override
    public void close() {
        synchronized (all) {
            for (XAConnection xa : all) closeQuietly(xa);
            all.clear();
        }
        idle.clear();
    }

    /** XA transaction ids: the distributed transaction (gtrid) and this shard (bqual); format "Gy". */
    record BranchXid(long gtrid, int shard) implements Xid {
        public int getFormatId() {
            return 0x4779;
        }

        public byte[] getGlobalTransactionId() {
            return ByteBuffer.allocate(8).putLong(gtrid).array();
        }

        public byte[] getBranchQualifier() {
            return ByteBuffer.allocate(4).putInt(shard).array();
        }
    }
}
