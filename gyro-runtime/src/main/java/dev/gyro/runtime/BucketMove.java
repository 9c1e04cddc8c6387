package dev.gyro.runtime;

import dev.gyro.app.BadRequestException;
import dev.gyro.protocol.PartitionMap;
import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.StateUpdate;
import dev.gyro.protocol.Value;
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
 * #TRANSACTION}(to, buckets), that runs in the token's round like any other. It closes the buckets here
 * ({@link Buckets#close}), reads their rows, and commits, under its gsn, the new owners (rows of {@code gyro_buckets})
 * with the rows as its state update; every instance applies it in gsn order, so all switch to the new map at the same
 * point of the global order, and the new owner has the rows before it runs a request of theirs. The buckets open
 * again under the new map: a request parked meanwhile goes to the new owner.
 *
 * <p>Threads: {@link #run} on a global thread.
 */
final class BucketMove {

    private static final Logger log = LoggerFactory.getLogger(BucketMove.class);

    /** The transaction name of a move request ({@link MoveRequest}). */
    static final String TRANSACTION = MoveRequest.TRANSACTION;
    /** How long a move waits for the requests running in its buckets to finish. */
    static final long DRAIN_MILLIS = 10_000;

    /** What a move request asks: {@code buckets} to instance {@code to}. */
    record Order(int to, int[] buckets) {

        /** The order a move request gives, checked against {@code map} and this instance ({@code self}). */
        static Order of(Request r, PartitionMap map, int self, int instances) throws BadRequestException {
            List<Value> p = r.parameters();
            if (p.size() != 2 || !(p.get(0) instanceof Value.Int to) || !(p.get(1) instanceof Value.Text list))
                throw new BadRequestException(TRANSACTION + " takes the new owner (an instance id) and the buckets"
                        + " (\"3,17,42\"), not " + r);
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
            return new Order((int) to.value(), buckets);
        }
    }

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

    /** Runs move request {@code id}, again while it loses races; a failed move changes nothing and may be asked again. */
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
        long started = System.nanoTime();
        try {
            buckets.close(order.buckets(), order.to(), DRAIN_MILLIS);
        } catch (TimeoutException e) {
            return new GlobalAttempts.Outcome(null, null, new IllegalStateException("move of buckets "
                    + Arrays.toString(order.buckets()) + " to instance " + order.to() + " not run: " + e.getMessage()));
        }
        PartitionMap before = routing.map();
        PartitionMap newer = before.moved(order.buckets(), order.to(), before.version() + 1);
        BitSet moving = new BitSet();
        for (int b : order.buckets()) moving.set(b);
        return attempts.run(id, p, gsns, ordered, new OwnUpdates.Work() {
            private List<RowChange> rows;

            @Override
            public void read(Connection c) throws SQLException {
                // In the move's own transaction, which writes only Gyro's tables: no request writes these rows while
                // the buckets are closed, so on PostgreSQL a scan that others' writes race only loses to them.
                rows = BucketRows.rowsOf(c, db.dialect(), db.tables(), tables, before, moving, false);
            }

            @Override
            public OwnUpdates.Changes changes(long gsn) {
                return new OwnUpdates.Changes(BucketRows.mapRows(newer, order.buckets(), gsn), rows);
            }

            @Override
            public Object committed(StateUpdate update) {
                buckets.open(order.buckets(), BucketRows.after(before, update), update.gsn());
                String result = "moved buckets " + Arrays.toString(order.buckets()) + " (" + (update.changes().size()
                        - order.buckets().length) + " rows) from instance " + self + " to instance " + order.to()
                        + " at gsn " + update.gsn() + ": map version " + newer.version() + ", "
                        + (System.nanoTime() - started) / 1_000_000 + " ms closed";
                log.debug("instance {}: {}", self, result); // the reply says it
                return result;
            }

            @Override
            public void failed() {
                buckets.open(order.buckets(), null, 0);
            }
        });
    }
}
