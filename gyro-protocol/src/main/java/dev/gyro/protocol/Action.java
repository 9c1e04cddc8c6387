package dev.gyro.protocol;

import java.util.List;

/**
 * What the {@link ConveyorBelt} asks its runtime to do. The runtime performs actions in the order they are
 * returned and reports completion through the matching event. Each action's Javadoc is the runtime's duty.
 */
public sealed interface Action
        permits Action.Send, Action.ApplyUpdates, Action.ExecuteGlobal, Action.ExecuteGlobals, Action.CommitGlobal,
        Action.PassToken, Action.ApplyAhead {

    /** Send {@code message} to instance {@code to}. Best effort: losing it is allowed, the protocol resends. */
    record Send(int to, Message message) implements Action {}

    /**
     * Lines 8-12 of Algorithm 1. In ONE atomic DBMS transaction: apply {@code updates} in order (each as
     * idempotent upserts/deletes), record {@code token} as the held token and {@code lastGsn} as the last
     * applied gsn, and delete this instance's outbox (its own updates have come back around the ring).
     * Then report {@link ConveyorBelt#onUpdatesApplied(long)} with {@code token.hop()}. If the transaction
     * fails it must not be reported; the instance crashes or retries the same action. A retry after a commit whose
     * answer was lost must not apply the updates again ({@link #committedIn}).
     */
    record ApplyUpdates(Token token, List<StateUpdate> updates, long lastGsn) implements Action {
        /**
         * This action's transaction committed already, as the instance's durable state {@code recorded} (read in the
         * retrying transaction) shows: its token is recorded as held. Applying the updates again would write their row
         * images over what local requests wrote since (docs/decisions/05-exactly-once.md).
         */
        public boolean committedIn(DurableState recorded) {
            return recorded.tokenStatus() == DurableState.TokenStatus.HELD && recorded.token() != null
                    && recorded.token().hop() == token.hop();
        }
    }

    /**
     * Updates that arrived ahead of the token ({@link Message.UpdateAhead}), the next gsns after the last applied
     * one, in gsn order: apply them in one DBMS transaction that also records {@code lastGsn} as the last applied gsn
     * (nothing else: the token's record stays as it is). Only ever asked while the instance does not hold the token.
     * Performed in order with the other actions, like every action; once committed, report
     * {@link ConveyorBelt#onAheadApplied(ApplyAhead)} (it tells the gsns' maker, so the token can leave them behind).
     * A retry after a commit whose answer was lost must not apply them again ({@link #committedIn}).
     */
    record ApplyAhead(List<StateUpdate> updates, long lastGsn) implements Action {
        public ApplyAhead {
            updates = List.copyOf(updates);
        }

        /**
         * This action's transaction committed already, as the instance's last applied gsn {@code recordedLastGsn}
         * (read in the retrying transaction) shows: a retry after a commit whose answer was lost does nothing.
         */
        public boolean committedIn(long recordedLastGsn) {
            return recordedLastGsn >= lastGsn;
        }
    }

    /**
     * Line 15 of Algorithm 1: execute queued global request {@code requestId} on the local DBMS, capturing its
     * writes as row images. If it commits writes, the same DBMS transaction records {@code gsn} as the last
     * applied gsn and stores the update (with this gsn and this instance as origin) in the outbox; then
     * report {@link ConveyorBelt#onGlobalExecuted(long, StateUpdate)} with the update. If it fails (rolled
     * back) or wrote nothing, report {@code null}: no update ships and the gsn is not used.
     * The runtime replies to the request's client itself, once the outcome is durable.
     */
    record ExecuteGlobal(long requestId, long gsn) implements Action {}

    /**
     * Lines 14-18 of Algorithm 1 with the parallel execution of the paper's Appendix B, asked for only when
     * {@link ConveyorBeltConfig#parallelGlobals()} is set (a DBMS with commit ordering: a transaction cannot commit
     * before one serialized ahead of it). Execute every request of {@code requestIds} (this round's snapshot) on
     * the local DBMS, concurrently, each in its own DBMS transaction, capturing its writes as row images. A request
     * that wrote something keeps its transaction open and reports {@link ConveyorBelt#onReadyToCommit(long)}; the
     * belt answers with {@link CommitGlobal}, one commit at a time. A request that fails (rolled back) or writes
     * nothing takes no gsn and is reported {@link ConveyorBelt#onGlobalExecuted(long, StateUpdate)} with
     * {@code null}, at any time. The round ends when every request of the list was reported. The runtime replies
     * to each client itself, once its outcome is durable.
     */
    record ExecuteGlobals(List<Long> requestIds) implements Action {
        public ExecuteGlobals {
            requestIds = List.copyOf(requestIds);
        }
    }

    /**
     * Parallel globals: request {@code requestId}, ready to commit, takes {@code gsn}. In its own DBMS transaction,
     * record {@code gsn} as the last applied gsn and store the update (this gsn, this instance as origin) in the
     * outbox, commit, then report {@link ConveyorBelt#onGlobalExecuted(long, StateUpdate)} with the update. No other
     * commit is granted until then, so gsn order is commit order, which commit ordering makes a serialization
     * order. If the commit fails and rolls back, report {@link ConveyorBelt#onCommitAborted(long)} (the gsn stays
     * free) and run the request again or report it executed with {@code null}.
     */
    record CommitGlobal(long requestId, long gsn) implements Action {}

    /**
     * Line 19 of Algorithm 1: durably record {@code token} as passed (so a restart resends it instead of acting
     * as primary), then send it to instance {@code to}.
     */
    record PassToken(int to, Token token) implements Action {}
}
