package dev.gyro.bench.twopc;

import dev.gyro.runtime.Backoff;

import dev.gyro.app.Application;
import dev.gyro.app.Call;
import dev.gyro.app.Classification;
import dev.gyro.app.Outcome;
import dev.gyro.app.TransactionCatalog;
import dev.gyro.bench.Invocations;
import dev.gyro.bench.SystemUnderTest;
import dev.gyro.bench.Target;
import dev.gyro.bench.sharded.ShardedDatabases;
import dev.gyro.protocol.Value;
import dev.gyro.cluster.Backend;
import dev.gyro.emulation.Capacity;
import dev.gyro.runtime.db.Dialect;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The 2pc baseline (the paper's Section VII-C compares Gyro with MySQL Cluster, two-phase commit over
 * partitioned data): the application's data sharded over N databases the way Gyro partitions requests
 * ({@link ShardedDatabases}), each transaction's statements sent to the shards holding its rows ({@link Router}),
 * and a transaction that touched more than one shard committed with two-phase commit through the databases' own
 * prepared transactions (XA: PostgreSQL {@code PREPARE TRANSACTION}, MariaDB {@code XA PREPARE}), at serializable
 * isolation on every shard. Replicated tables are written on every shard under the same 2PC.
 *
 * <p>The coordinator runs in the client process, as a sharding library does in an application server. A call that
 * loses a race (serialization failure, deadlock, or a lock wait over {@value XaShard#LOCK_TIMEOUT_SECONDS} s, which is
 * how a deadlock across shards shows) is rolled back everywhere and run again, as Gyro's runtime retries its own.
 *
 * <p>Serializability across shards: each database serializes its branches; MariaDB's locking makes the union
 * serializable (strict two-phase locking with a commit decision after every branch holds its locks). PostgreSQL's SSI
 * decides per database, so an anomaly spanning two shards could pass undetected: the price of this design that the
 * checks after each run would show if the workloads provoked it.
 */
public final class TwoPhaseCommitSystem implements SystemUnderTest {

    private static final Logger log = LoggerFactory.getLogger(TwoPhaseCommitSystem.class);
    static final int MAX_ATTEMPTS = 50;

    @Override
    public String name() {
        return "2pc";
    }

    @Override
    public String describe() {
        return "data sharded like Gyro's partitions, statements routed to their shards, two-phase commit through the "
                + "databases' XA prepared transactions (serializable)";
    }

    @Override
    public Deployment deploy(Setup setup) throws Exception {
        if (setup.backend() == Backend.SQLITE)
            throw new UnsupportedOperationException("SQLite has no prepared transactions (no XA), so the 2pc baseline "
                    + "cannot commit across SQLite databases: run it with --backend postgres or mariadb");
        if (setup.wan().emulated())
            throw new UnsupportedOperationException("the 2pc baseline runs on a LAN only, as the paper measures it "
                    + "(Section VII-C): its coordinator does not emulate WAN delays");
        ShardedDatabases dbs = ShardedDatabases.create(setup, n -> {});
        List<XaShard> shards = new ArrayList<>();
        try {
            for (int i = 0; i < dbs.size(); i++)
                shards.add(new XaShard(i, setup.backend(), dbs.jdbcUrl(i), setup.capacity().copy()));
            TwoPcTarget target = new TwoPcTarget(setup.app(), dbs, shards.toArray(XaShard[]::new));
            return new Deployment() {
                public Target target() {
                    return target;
                }

                public int databases() {
                    return dbs.size();
                }

                public List<String> settleAndCheck() throws Exception {
                    List<String> problems = new ArrayList<>(inDoubt(dbs));
                    problems.addAll(dbs.check());
                    return problems;
                }

                public List<Capacity> servers() {
                    List<Capacity> out = new ArrayList<>();
                    for (XaShard s : shards) out.add(s.capacity);
                    return out;
                }

                public void close() {
                    try {
                        target.close();
                    } finally {
                        dbs.close();
                    }
                }
            };
        } catch (Exception | Error e) {
            for (XaShard s : shards) s.close();
            dbs.close();
            throw e;
        }
    }

    /** Prepared branches nobody finished: a coordinator bug, or a crash. Each one is a problem of the run. */
    static List<String> inDoubt(ShardedDatabases dbs) throws SQLException {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < dbs.size(); i++) {
            try (Connection c = dbs.connect(i); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery(dbs.backend() == Backend.POSTGRES
                         ? "SELECT gid FROM pg_prepared_xacts" : "XA RECOVER")) {
                int n = 0;
                while (rs.next()) n++;
                if (n > 0) out.add("database " + i + " holds " + n + " prepared transaction(s) never committed or rolled back");
            }
        }
        return out;
    }

    /** Runs each call as one distributed transaction through the router. */
    static final class TwoPcTarget implements Target {
        private final TransactionCatalog catalog;
        private final Classification classification;
        final ShardedDatabases dbs;
        private final XaShard[] shards;
        private final Router router;
        private final Dialect dialect;
        private final AtomicLong transactions = new AtomicLong();
        final LongAdder retries = new LongAdder(), twoPhase = new LongAdder(), committed = new LongAdder();

        TwoPcTarget(Application app, ShardedDatabases dbs, XaShard[] shards) {
            this.catalog = new TransactionCatalog(app.transactions());
            this.classification = app.classification();
            this.dbs = dbs;
            this.shards = shards;
            this.router = new Router(app, dbs.map());
            this.dialect = dbs.backend().dialect();
        }

        @Override
        public Channel open() {
            return this::execute;
        }

        /** A new distributed transaction whose replicated reads go to {@code home} (tests drive it by hand). */
        DistributedTransaction transaction(int home) {
            return new DistributedTransaction(shards, transactions.incrementAndGet(), home, router::shardOf);
        }

        Connection connection(DistributedTransaction tx) {
            return router.connection(tx);
        }

        private Result execute(Call call) {
            List<Value> params = Invocations.parameters(call);
            String kind;
            TransactionCatalog.Entry entry;
            int home;
            long seed = transactions.incrementAndGet();
            try {
                Classification.Rule rule = classification.rule(call.transaction());
                kind = rule.kind().label();
                entry = catalog.get(call.transaction());
                // Replicated tables are read at the shard of the call's first partitioning parameter: a call Gyro
                // runs locally then touches one shard only.
                home = rule.partitionBy().isEmpty() ? Math.floorMod(seed, shards.length)
                        : router.shardOf(params.get(entry.parameterIndex(rule.partitionBy().get(0))));
            } catch (RuntimeException e) {
                return new Result(new Outcome(Outcome.Status.FAILED, List.of(), e.getMessage()), "");
            }
            long now = System.currentTimeMillis();
            for (int attempt = 1; ; attempt++) {
                DistributedTransaction tx = transaction(home);
                boolean committing = false;
                try {
                    Object result = entry.invoke(Invocations.context(router.connection(tx), now, seed), params);
                    committing = true;
                    tx.commit(); // rolls back everywhere itself when it fails
                    committed.increment();
                    if (tx.twoPhase) twoPhase.increment();
                    return new Result(Invocations.ok(result), kind);
                } catch (Exception e) {
                    if (!committing) tx.rollback();
                    if (attempt < MAX_ATTEMPTS && retryable(e)) {
                        retries.increment();
                        pause(attempt);
                        continue;
                    }
                    if (!(e instanceof dev.gyro.app.UserAbort)) log.debug("2pc call {} failed", call, e);
                    if (attempt == MAX_ATTEMPTS && retryable(e))
                        return new Result(new Outcome(Outcome.Status.FAILED, List.of(), call.transaction()
                                + " gave up after " + attempt + " attempts, each lost a race: " + e), kind);
                    return new Result(Invocations.failed(call, e), kind);
                }
            }
        }

        /**
         * Lost races: what the dialect retries, and duplicate keys. Two calls that read a replicated table on
         * different shards (each at its home shard) and derive the same new key from it (TPC-W's next order id)
         * collide only when their inserts meet on some shard; neither database saw the other's read, so the
         * collision shows as a duplicate key rather than a serialization failure. Run again, the call reads the
         * winner's row.
         */
        private boolean retryable(Throwable t) {
            for (int depth = 0; t != null && depth < 20; depth++, t = t.getCause()) {
                if (t instanceof SQLException e && (dialect.isRetryable(e) || "40001".equals(e.getSQLState())
                        || "23505".equals(e.getSQLState()) || e.getErrorCode() == 1062))
                    return true;
                if (t.getCause() == t) break;
            }
            return false;
        }

        /**
         * Contending retries spread out, 4 ms doubling to at most 500 ms, as the peer's: capped at 50 ms, TPC-C's
         * newOrder on 8 PostgreSQL shards at 32 clients lost 50 races in a row twice in one point.
         */
        private static final Backoff RETRY = Backoff.of(4, 500);

        private static void pause(int attempt) {
            RETRY.pause(attempt);
        }

        @Override
        public void close() {
            router.close();
            for (XaShard s : shards) s.close();
        }
    }
}
