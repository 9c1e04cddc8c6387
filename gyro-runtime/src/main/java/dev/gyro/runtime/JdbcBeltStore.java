package dev.gyro.runtime;

import dev.gyro.driver.BeltActions;
import dev.gyro.driver.BeltLoop;
import dev.gyro.driver.Stopping;
import dev.gyro.protocol.Action;
import dev.gyro.protocol.PartitionMap;
import dev.gyro.protocol.StateUpdate;
import dev.gyro.protocol.Token;
import dev.gyro.runtime.db.BucketRows;
import dev.gyro.runtime.db.Database;
import dev.gyro.runtime.db.MetadataStore;
import dev.gyro.runtime.db.UpdateApplier;

import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.function.BooleanSupplier;

/**
 * The belt's durable duties on the instance's own database: each one DBMS transaction of the application's rows and
 * Gyro's metadata tables ({@link MetadataStore}), tried until it commits while its failure passes
 * ({@link RetryRule#durably}). A retry after a commit whose answer was lost does nothing if the first attempt committed
 * (docs/decisions/05-exactly-once.md). Each returns once committed. Called on the belt loop only.
 */
final class JdbcBeltStore implements BeltActions.BeltStore {

    private final int self;
    private final Database db;
    private final RetryRule retry;
    private volatile Buckets buckets;
    private volatile RingMembers members;

    /** @param stopping true once the instance stops: a retry then ends with {@link Stopping} */
    JdbcBeltStore(int self, Database db, BooleanSupplier stopping) {
        this(self, db, new RetryRule(self, db, stopping));
    }

    /**
     * As {@link #JdbcBeltStore(int, Database, BooleanSupplier)}, pausing between tries with {@code databaseDown}
     * ({@link RetryRule.Pause}): for a deterministic test, whose pauses must not sleep.
     */
    JdbcBeltStore(int self, Database db, BooleanSupplier stopping, RetryRule.Pause databaseDown) {
        this(self, db, new RetryRule(self, db, stopping, databaseDown));
    }

    private JdbcBeltStore(int self, Database db, RetryRule retry) {
        this.self = self;
        this.db = db;
        this.retry = retry;
    }

    /**
     * Bucket moves' copies and cutovers among the updates are applied as their receivers must, and their maps adopted,
     * and a move of this instance's that catches up is told of them (decision 43).
     */
    JdbcBeltStore moving(Buckets buckets, RingMembers members) {
        this.buckets = buckets;
        this.members = members;
        return this;
    }

    @Override
    public CompletionStage<Void> applyUpdates(Action.ApplyUpdates apply) throws SQLException {
        PartitionMap[] after = new PartitionMap[1];
        retry.durably("apply the updates of hop " + apply.token().hop(), (c, retry) -> {
            if (retry && apply.committedIn(MetadataStore.load(c, self))) return; // the first attempt committed
            after[0] = apply(c, apply.updates());
            MetadataStore.recordReceived(c, apply.token(), apply.lastGsn());
        });
        adopt(after[0], apply.updates());
        return BeltLoop.DONE;
    }

    @Override
    public CompletionStage<Void> applyAhead(Action.ApplyAhead ahead) throws SQLException {
        PartitionMap[] after = new PartitionMap[1];
        retry.durably("apply the updates up to gsn " + ahead.lastGsn() + " ahead of the token", (c, retry) -> {
            if (retry && ahead.committedIn(MetadataStore.lastGsn(c))) return; // the first attempt committed
            after[0] = apply(c, ahead.updates());
            MetadataStore.recordAppliedAhead(c, ahead.updates().get(0).gsn() - 1, ahead.lastGsn());
        });
        adopt(after[0], ahead.updates());
        return BeltLoop.DONE;
    }

    /** Applies {@code updates}; returns the map they leave when one of them moves buckets, else null. */
    private PartitionMap apply(java.sql.Connection c, List<StateUpdate> updates) throws SQLException {
        Buckets b = buckets;
        if (b != null) b.touched(updates); // a move catching up ships their rows again (decision 43)
        if (b == null || updates.stream().noneMatch(BucketRows::copiesOrMoves)) {
            UpdateApplier.applyAll(c, db.dialect(), updates);
            return null;
        }
        return BucketRows.applyAll(c, db.dialect(), db.tables(), b.tables(), b.map(), updates);
    }

    /** Committed: the map the updates left is in force from now on, as of their last move's gsn. */
    private void adopt(PartitionMap after, List<StateUpdate> updates) {
        RingMembers m = members;
        if (m != null && updates.stream().anyMatch(u -> u.ring() != null)) m.committed(updates); // decision 44
        if (after == null) return;
        long gsn = 0;
        for (StateUpdate u : updates) if (BucketRows.moves(u)) gsn = u.gsn();
        buckets.adopt(after, gsn);
    }

    @Override
    public CompletionStage<Void> recordPassed(Token token) throws SQLException {
        retry.durably("record the token of hop " + token.hop() + " as passed",
                (c, retry) -> MetadataStore.recordPassed(c, token));
        return BeltLoop.DONE;
    }
}
