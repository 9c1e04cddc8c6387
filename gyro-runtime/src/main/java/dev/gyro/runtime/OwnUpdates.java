package dev.gyro.runtime;

import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.StateUpdate;
import dev.gyro.runtime.db.Database;
import dev.gyro.runtime.db.MetadataStore;
import dev.gyro.runtime.db.OrderedCommits;
import dev.gyro.runtime.db.UpdateApplier;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The attempts of one of Gyro's own global requests, a bucket move or a ring change (docs/decisions/43-bucket-moves.md,
 * docs/decisions/44-ring-changes.md): as {@link GlobalAttempts} runs an application's, but the update is made by Gyro
 * and not captured from the application's writes. Each attempt is one DBMS transaction, in the commit order of the
 * round's other requests where the DBMS needs it (decision 20): it reads what it needs, takes its gsn, applies here the
 * changes this database does not hold yet, and records the update with its gsn (docs/decisions/05-exactly-once.md).
 * Run again while it loses races; a commit of unknown outcome is looked up as for any global request.
 */
final class OwnUpdates {

    /** What one such request does in each attempt. */
    interface Work {
        /** Reads what the update needs, in the attempt's transaction, before the gsn is taken. */
        void read(Connection c) throws SQLException;

        /** The update's changes under {@code gsn}: the ones to apply here first, then the ones this database holds. */
        Changes changes(long gsn);

        /** Committed (or found committed after a failed commit): the reply's result. */
        Object committed(StateUpdate update);

        /** Given up: nothing committed. */
        void failed();
    }

    /** An update's changes: {@code apply} are written here too, {@code held} are what this database holds already. */
    record Changes(List<RowChange> apply, List<RowChange> held) {}

    private final int self;
    private final Database db;
    private final RetryRule retry;

    OwnUpdates(int self, Database db, RetryRule retry) {
        this.self = self;
        this.db = db;
        this.retry = retry;
    }

    /** Runs {@code work} as request {@code id}'s attempts, until one commits or it fails for good. */
    GlobalAttempts.Outcome run(long id, GlobalAttempts.Pending p, GlobalAttempts.GsnSource gsns, OrderedCommits ordered,
                               Work work) throws InterruptedException {
        for (int attempt = 1; ; attempt++) {
            Connection c = null;
            boolean committed = false;
            long gsn = -1;
            OrderedCommits.Attempt turn = null;
            try {
                c = db.writeConnection();
                if (ordered != null) turn = ordered.begin(c, attempt > 1);
                work.read(c);
                if (turn != null) ordered.beforeCommit(c, turn);
                gsn = gsns.gsnFor(id, p.timeline());
                Changes changes = work.changes(gsn);
                UpdateApplier.apply(c, db.dialect(), changes.apply());
                List<RowChange> all = new ArrayList<>(changes.apply());
                all.addAll(changes.held());
                StateUpdate update = new StateUpdate(gsn, self, all);
                MetadataStore.recordGlobal(c, update);
                db.commit(c);
                committed = true;
                return new GlobalAttempts.Outcome(work.committed(update), update, null);
            } catch (InterruptedException e) {
                if (c != null && !committed) db.rollback(c);
                work.failed();
                throw e;
            } catch (Exception e) {
                if (c != null && !committed) db.rollback(c);
                StateUpdate anyway = gsn >= 0 ? retry.committedAnyway(gsn, e) : null;
                if (anyway != null) {
                    work.committed(anyway);
                    return new GlobalAttempts.Outcome(null, anyway, e);
                }
                if (gsn >= 0) gsns.aborted(id);
                if (retry.again(attempt, e)) continue;
                work.failed();
                return new GlobalAttempts.Outcome(null, null, e);
            } finally {
                if (turn != null) ordered.end(turn);
                if (c != null) {
                    try {
                        c.close();
                    } catch (SQLException | RuntimeException ignored) {
                        // the connection is gone
                    }
                }
            }
        }
    }
}
