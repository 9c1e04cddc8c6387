package dev.gyro.runtime;

import dev.gyro.driver.BeltActions;
import dev.gyro.driver.BeltLoop;
import dev.gyro.protocol.Action;
import dev.gyro.protocol.Token;
import dev.gyro.runtime.db.Database;
import dev.gyro.runtime.db.MetadataStore;
import dev.gyro.runtime.db.UpdateApplier;

import java.sql.SQLException;
import java.util.concurrent.CompletionStage;
import java.util.function.BooleanSupplier;

/**
 * {@link JdbcBeltStore} with one of its two retry guards left out (docs/decisions/05-exactly-once.md), for tests to
 * show that they catch the bug the guard prevents: the duty whose guard is left out is done as JdbcBeltStore does it,
 * the guard's line removed; the other duties are JdbcBeltStore's own. Keep the copied duty in step with JdbcBeltStore.
 */
final class UnguardedBeltStore implements BeltActions.BeltStore {

    /** The guard left out. */
    enum Without {
        /** {@code applyUpdates}: a retry applies the token's updates again, though the first attempt committed. */
        RECEIVED_ALREADY,
        /** {@code applyAhead}: a retry applies the updates sent ahead again, though the first attempt committed. */
        APPLIED_AHEAD_ALREADY
    }

    private final Without without;
    private final Database db;
    private final RetryRule retry;
    private final JdbcBeltStore real;

    /** @param databaseDown the pause between tries, as {@link JdbcBeltStore}'s (a test's, that does not sleep) */
    UnguardedBeltStore(Without without, int self, Database db, BooleanSupplier stopping,
                       RetryRule.Pause databaseDown) {
        this.without = without;
        this.db = db;
        this.retry = new RetryRule(self, db, stopping, databaseDown);
        this.real = new JdbcBeltStore(self, db, stopping, databaseDown);
    }

    @Override
    public CompletionStage<Void> applyUpdates(Action.ApplyUpdates apply) throws SQLException {
        if (without != Without.RECEIVED_ALREADY) return real.applyUpdates(apply);
        retry.durably("apply the updates of hop " + apply.token().hop(), (c, retry) -> {
            UpdateApplier.applyAll(c, db.dialect(), apply.updates());
            MetadataStore.recordReceived(c, apply.token(), apply.lastGsn());
        });
        return BeltLoop.DONE;
    }

    @Override
    public CompletionStage<Void> applyAhead(Action.ApplyAhead ahead) throws SQLException {
        if (without != Without.APPLIED_AHEAD_ALREADY) return real.applyAhead(ahead);
        retry.durably("apply the updates up to gsn " + ahead.lastGsn() + " ahead of the token", (c, retry) -> {
            UpdateApplier.applyAll(c, db.dialect(), ahead.updates());
            MetadataStore.recordAppliedAhead(c, ahead.updates().get(0).gsn() - 1, ahead.lastGsn());
        });
        return BeltLoop.DONE;
    }

    @Override
    public CompletionStage<Void> recordPassed(Token token) throws SQLException {
        return real.recordPassed(token);
    }
}
