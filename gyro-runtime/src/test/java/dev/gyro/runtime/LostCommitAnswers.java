package dev.gyro.runtime;

import com.zaxxer.hikari.HikariPoolMXBean;
import dev.gyro.runtime.db.Database;
import dev.gyro.runtime.db.Dialect;
import dev.gyro.runtime.db.Failures;
import dev.gyro.runtime.db.SqlWork;
import dev.gyro.runtime.db.TableCatalog;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * A database whose write transactions now and then commit for real and then report a broken connection (SQLSTATE
 * 08006), as a database server that crashed inside the commit does: the writes are there, the answer is lost
 * (docs/decisions/05-exactly-once.md). Everything else goes to the database underneath as it is. A write commit loses
 * its answer while {@link #lostAnswers} is positive (one each), or when {@link #lose} says so; between the commit and
 * the failure report {@link #meanwhile} runs, as whatever else the instance's threads commit before the caller tries
 * again (what it commits through this view never loses its answer). Closing the view closes the database.
 */
final class LostCommitAnswers implements Database {

    /** What commits between a lost answer and the caller's retry. */
    interface Meanwhile {
        void run() throws SQLException;
    }

    final Database base;
    /** The next this many write commits lose their answers. */
    final AtomicInteger lostAnswers = new AtomicInteger();
    /** Write commits that went through, their answers lost or not. */
    final AtomicInteger commits = new AtomicInteger();
    /** Write commits whose answers were lost. */
    final AtomicInteger lost = new AtomicInteger();
    /** Asked at each write commit (once {@link #lostAnswers} is spent): true loses its answer. */
    volatile BooleanSupplier lose = () -> false;
    volatile Meanwhile meanwhile = () -> {};
    /**
     * Asked at each commit of a connection from {@link #writeConnection()} (a global request's attempt): true rolls it
     * back and reports a lost race (SQLITE_BUSY), as a DBMS that aborts a transaction at its commit does. Then a
     * granted gsn is given back ({@code BeltEvent.CommitAborted}, paper Appendix B).
     */
    volatile BooleanSupplier refuse = () -> false;
    /** Commits refused ({@link #refuse}). */
    final AtomicInteger refused = new AtomicInteger();

    private final Set<Connection> writing =
            Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));
    private final ThreadLocal<Boolean> inMeanwhile = ThreadLocal.withInitial(() -> false);

    LostCommitAnswers(Database base) {
        this.base = base;
    }

    @Override
    public Connection writeConnection() throws SQLException {
        Connection c = base.writeConnection();
        writing.add(c);
        return c;
    }

    @Override
    public Connection readConnection() throws SQLException {
        return base.readConnection();
    }

    @Override
    public void commit(Connection c) throws SQLException {
        boolean write = writing.remove(c);
        if (write && refuse.getAsBoolean()) {
            base.rollback(c);
            refused.incrementAndGet();
            throw new SQLException("[SQLITE_BUSY] the commit was refused (simulated)", null, 5);
        }
        base.commit(c);
        if (write) committed();
    }

    @Override
    public void rollback(Connection c) {
        writing.remove(c);
        base.rollback(c);
    }

    @Override
    public <T> T inTransaction(boolean readOnly, SqlWork<T> work) throws SQLException {
        T result = base.inTransaction(readOnly, work);
        if (!readOnly) committed();
        return result;
    }

    /** After a write commit went through: maybe its answer is lost. */
    private void committed() throws SQLException {
        commits.incrementAndGet();
        if (inMeanwhile.get()) return;
        if (lostAnswers.getAndUpdate(n -> Math.max(0, n - 1)) == 0 && !lose.getAsBoolean()) return;
        lost.incrementAndGet();
        inMeanwhile.set(true);
        try {
            meanwhile.run();
        } finally {
            inMeanwhile.set(false);
        }
        throw new SQLRecoverableException("the connection broke during COMMIT", "08006");
    }

    @Override
    public boolean replicated() {
        return base.replicated();
    }

    @Override
    public Dialect dialect() {
        return base.dialect();
    }

    @Override
    public String jdbcUrl() {
        return base.jdbcUrl();
    }

    @Override
    public Options options() {
        return base.options();
    }

    @Override
    public TableCatalog tables() {
        return base.tables();
    }

    @Override
    public Failures failures() {
        return base.failures();
    }

    @Override
    public Map<String, HikariPoolMXBean> pools() {
        return base.pools();
    }

    @Override
    public long retries() {
        return base.retries();
    }

    @Override
    public void close() {
        base.close();
    }

    @Override
    public String toString() {
        return base + ", losing commit answers";
    }
}
