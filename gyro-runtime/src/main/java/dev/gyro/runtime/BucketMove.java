package dev.gyro.runtime;

import dev.gyro.app.BadRequestException;
import dev.gyro.protocol.PartitionMap;
import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.StateUpdate;
import dev.gyro.protocol.Value;
import dev.gyro.runtime.db.BucketCopy;
import dev.gyro.runtime.db.BucketRows;
import dev.gyro.runtime.db.Database;
import dev.gyro.runtime.db.OrderedCommits;
import dev.gyro.wire.MoveRequest;
import dev.gyro.wire.Request;
import dev.gyro.wire.RoutingTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;

/**
 * A bucket move at its old owner (docs/decisions/43-bucket-moves.md): a global request of Gyro's own, {@value
 * #TRANSACTION}(to, buckets), run in two token rounds. Its copy reads the buckets' rows while they stay open, and
 * commits them under its gsn as images, with a row of {@code gyro_bucket_copies} per bucket, as its state update; the
 * map does not change. Its cutover, {@value #TRANSACTION}(to, buckets, the copy's gsn), asked for by the copy in a
 * later round, closes the buckets ({@link Buckets#close}), reads their rows again, and commits the new owners (rows of
 * {@code gyro_buckets}) with what changed since the copy ({@link BucketCopy#catchUp}). Every instance applies both in
 * gsn order, so all switch to the new map at the same point of the global order, and the new owner has the rows before
 * it runs a request of theirs. The buckets open again under the new map: a request parked meanwhile goes to the new
 * owner.
 *
 * <p>Threads: {@link #run} on a global thread.
 */
final class BucketMove {

    private static final Logger log = LoggerFactory.getLogger(BucketMove.class);

    /** The transaction name of a move request ({@link MoveRequest}). */
    static final String TRANSACTION = MoveRequest.TRANSACTION;
    /** How long a move waits for the requests running in its buckets to finish. */
    static final long DRAIN_MILLIS = 10_000;

    /** What a move request asks: {@code buckets} to instance {@code to}; their cutover if {@code copied} is a gsn. */
    record Order(int to, int[] buckets, long copied) {

        /** The order a move request gives, checked against {@code map} and this instance ({@code self}). */
        static Order of(Request r, PartitionMap map, int self, int instances) throws BadRequestException {
            List<Value> p = r.parameters();
            if (p.size() < 2 || p.size() > 3 || !(p.get(0) instanceof Value.Int to)
                    || !(p.get(1) instanceof Value.Text list) || (p.size() == 3 && !(p.get(2) instanceof Value.Int)))
                throw new BadRequestException(TRANSACTION + " takes the new owner (an instance id) and the buckets"
                        + " (\"3,17,42\"), and for the cutover the copy's gsn, not " + r);
            long copied = p.size() == 3 ? ((Value.Int) p.get(2)).value() : -1;
            if (to.value() < 0 || to.value() >= instances)
                throw new BadRequestException(TRANSACTION + ": no instance " + to.value() + " in a ring of "
                        + instances);
            int[] buckets;
            try {
                buckets = Arrays.stream(list.value().split(",")).map(String::trim).mapToInt(Integer::parseInt)
                        .distinct().sorted().toArray();
            } catch (NumberFormatException e) {
                throw new BadRequestException(TRANSACTION + ": buckets are numbers separated by commas, not '"
                        + (list.value().length() <= 100 ? list.value() : list.value().substring(0, 100) + "...") + "'");
            }
            if (buckets.length == 0) throw new BadRequestException(TRANSACTION + ": no bucket to move");
            for (int b : buckets) {
                if (b < 0 || b >= map.buckets())
                    throw new BadRequestException(TRANSACTION + ": no bucket " + b + " (the map has buckets 0 to "
                            + (map.buckets() - 1) + ")");
                if (map.ownerOfBucket(b) != self)
                    throw new BadRequestException(TRANSACTION + ": bucket " + b + " belongs to instance "
                            + map.ownerOfBucket(b) + " (map version " + map.version() + "), not to instance " + self
                            + ", which can move only its own");
            }
            if (to.value() == self) throw new BadRequestException(TRANSACTION + ": instance " + self
                    + " already owns buckets " + list.value());
            return new Order((int) to.value(), buckets, copied);
        }

        /** The request of this move's cutover, once its copy committed at {@code gsn}. */
        Request cutOver(long gsn) {
            Request r = MoveRequest.of(to, buckets);
            List<Value> p = new java.util.ArrayList<>(r.parameters());
            p.add(new Value.Int(gsn));
            return new Request(r.transaction(), p, false, 0);
        }
    }

    /** A move's copy committed at {@code gsn}: the move goes on as the request {@code cutOver}, in a later round. */
    record Copied(int[] buckets, long gsn, Request cutOver) {}

    private final int self;
    private final Database db;
    private final RoutingTable routing;
    private final Buckets buckets;
    private final Map<String, String> tables;
    private final OwnUpdates attempts;

    /** @param tables the classification's partitioned tables: table to the column holding its rows' partitioning value */
    BucketMove(int self, Database db, RoutingTable routing, Buckets buckets, Map<String, String> tables,
               RetryRule retry) {
        this.self = self;
        this.db = db;
        this.routing = routing;
        this.buckets = buckets;
        this.tables = tables;
        this.attempts = new OwnUpdates(self, db, retry);
    }

    /**
     * Runs move request {@code id}, again while it loses races; a failed move changes nothing and may be asked again.
     * A copy that committed answers {@link Copied}; the cutover answers the move's reply.
     */
    GlobalAttempts.Outcome run(long id, GlobalAttempts.Pending p, GlobalAttempts.GsnSource gsns,
                               OrderedCommits ordered) throws InterruptedException {
        Order order;
        try {
            if (tables.isEmpty())
                throw new BadRequestException("buckets cannot be moved: the classification does not say which rows"
                        + " belong to a bucket (no \"partitionedTables\"; gyro analyze writes them where the local"
                        + " requests' writes allow it, docs/decisions/43-bucket-moves.md)");
            order = Order.of(p.request(), routing.map(), self, routing.addresses().size());
        } catch (BadRequestException e) {
            return new GlobalAttempts.Outcome(null, null, e);
        }
        BitSet moving = new BitSet();
        for (int b : order.buckets()) moving.set(b);
        return order.copied() < 0 ? copy(id, p, gsns, ordered, order, moving) : cutOver(id, p, gsns, ordered, order,
                moving);
    }

    /** The move's copy: the buckets' rows, read while they stay open, committed without a change of the map. */
    private GlobalAttempts.Outcome copy(long id, GlobalAttempts.Pending p, GlobalAttempts.GsnSource gsns,
                                        OrderedCommits ordered, Order order, BitSet moving)
            throws InterruptedException {
        BucketCopy copy;
        try {
            copy = buckets.copying(order.buckets(), order.to());
        } catch (IllegalStateException e) {
            return new GlobalAttempts.Outcome(null, null, e);
        }
        PartitionMap map = routing.map();
        java.util.concurrent.atomic.AtomicLong read = buckets.reading();
        GlobalAttempts.Outcome outcome = attempts.run(id, p, gsns, ordered, new OwnUpdates.Work() {
            private List<RowChange> rows;

            @Override
            public void read(Connection c) throws SQLException {
                read.set(0);
                rows = BucketCopy.copied(rows(c, ordered, map, moving, read, true));
            }

            @Override
            public OwnUpdates.Changes changes(long gsn) {
                return new OwnUpdates.Changes(BucketRows.copyRows(order.buckets(), order.to(), gsn), rows);
            }

            @Override
            public Object committed(StateUpdate update) {
                copy.ship(update.changes().stream().filter(c -> !c.table().equals(BucketRows.COPY_TABLE)).toList());
                buckets.copied(update.gsn());
                log.debug("instance {}: copied buckets {} ({} rows) to instance {} at gsn {}", self,
                        Arrays.toString(order.buckets()), copy.rows(), order.to(), update.gsn());
                return new Copied(order.buckets(), update.gsn(), order.cutOver(update.gsn()));
            }

            @Override
            public void failed() {
                buckets.abandon();
            }
        });
        if (outcome.failure() != null) buckets.abandon(); // committed, but its answer lost: asked again, it copies again
        return outcome;
    }

    /**
     * The move's cutover: closes the buckets, reads them again, and commits the new map with what changed since the
     * copy, so that no request of theirs runs here after that read.
     */
    private GlobalAttempts.Outcome cutOver(long id, GlobalAttempts.Pending p, GlobalAttempts.GsnSource gsns,
                                           OrderedCommits ordered, Order order, BitSet moving)
            throws InterruptedException {
        BucketCopy copy = buckets.copy(order.buckets(), order.to(), order.copied());
        if (copy == null)
            return new GlobalAttempts.Outcome(null, null, new IllegalStateException("instance " + self + " has no copy"
                    + " of buckets " + Arrays.toString(order.buckets()) + " to instance " + order.to() + " at gsn "
                    + order.copied() + " to catch up: ask for the move again (it starts with its copy)"));
        long started = System.nanoTime();
        try {
            buckets.close(order.buckets(), order.to(), DRAIN_MILLIS);
        } catch (TimeoutException e) {
            return new GlobalAttempts.Outcome(null, null, new IllegalStateException("move of buckets "
                    + Arrays.toString(order.buckets()) + " to instance " + order.to() + " not run: " + e.getMessage()));
        }
        PartitionMap before = routing.map();
        PartitionMap newer = before.moved(order.buckets(), order.to(), before.version() + 1);
        return attempts.run(id, p, gsns, ordered, new OwnUpdates.Work() {
            private int rows;
            private List<RowChange> caughtUp;

            @Override
            public void read(Connection c) throws SQLException {
                // The buckets are closed, and their requests have left: no request writes their rows until the commit.
                List<RowChange> now = rows(c, ordered, before, moving, new java.util.concurrent.atomic.AtomicLong(),
                        false);
                rows = now.size();
                caughtUp = copy.catchUp(now);
            }

            @Override
            public OwnUpdates.Changes changes(long gsn) {
                List<RowChange> apply = new java.util.ArrayList<>(BucketRows.mapRows(newer, order.buckets(), gsn));
                apply.addAll(BucketRows.copiesDone(order.buckets()));
                return new OwnUpdates.Changes(apply, caughtUp);
            }

            @Override
            public Object committed(StateUpdate update) {
                buckets.shipped(caughtUp.size());
                buckets.open(order.buckets(), BucketRows.after(before, update), update.gsn());
                long deleted = caughtUp.stream().filter(c -> c.kind() == RowChange.Kind.DELETE).count();
                String result = "moved buckets " + Arrays.toString(order.buckets()) + " (" + rows
                        + " rows) from instance " + self + " to instance " + order.to() + " at gsn " + update.gsn()
                        + ": map version " + newer.version() + ", " + (System.nanoTime() - started) / 1_000_000
                        + " ms closed; copied " + copy.rows() + " rows at gsn " + order.copied() + ", caught up "
                        + caughtUp.size() + " (" + deleted + " deleted)";
                log.debug("instance {}: {}", self, result); // the reply says it
                return result;
            }

            @Override
            public void failed() {
                buckets.open(order.buckets(), null, 0);
            }
        });
    }

    /**
     * The rows of {@code moving} as this database holds them. The copy reads a snapshot of its own ({@code snapshot}:
     * {@link dev.gyro.runtime.db.Dialect#readSnapshot}), which neither holds the write lock (SQLite) nor locks the rows
     * it reads (MariaDB) while it scans: a global request of the round that commits between that read and the copy's
     * commit was noted ({@link Buckets#touched}), so the cutover ships its rows again. The cutover reads in its own
     * transaction where global requests run side by side (PostgreSQL's ordered commits, decision 20, and MariaDB's
     * locks keep that read in its place in the gsn order), and a snapshot where they run one at a time (SQLite).
     */
    private List<RowChange> rows(Connection c, OrderedCommits ordered, PartitionMap map, BitSet moving,
                                 java.util.concurrent.atomic.AtomicLong read, boolean snapshot) throws SQLException {
        if (!snapshot && (ordered != null || db.dialect().parallelGlobals()))
            return BucketRows.rowsOf(c, db.dialect(), db.tables(), tables, map, moving, false, read);
        return db.inTransaction(true, r -> {
            db.dialect().readSnapshot(r);
            return BucketRows.rowsOf(r, db.dialect(), db.tables(), tables, map, moving, false, read);
        });
    }

    /** A cutover asked for by a copy that the belt did not take: the copy is given up. */
    void notRun(Request r) {
        try {
            Order o = Order.of(r, routing.map(), self, routing.addresses().size());
            if (o.copied() >= 0 && buckets.copy(o.buckets(), o.to(), o.copied()) != null) buckets.abandon();
        } catch (BadRequestException e) {
            // not a cutover of a copy made here
        }
    }
}
