package dev.gyro.runtime;

import dev.gyro.protocol.Action;
import dev.gyro.protocol.DurableState;
import dev.gyro.protocol.Message;
import dev.gyro.runtime.db.Database;
import dev.gyro.runtime.db.MetadataStore;
import dev.gyro.runtime.db.UpdateApplier;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.function.BooleanSupplier;

/**
 * Performs the Conveyor Belt's actions on the instance, each as {@link Action}'s Javadoc demands, on the belt loop
 * thread ({@link BeltLoop}). Applying a token's updates and recording a token as passed are DBMS transactions done
 * here, in order; executing global requests is handed to the {@link GlobalExecutor}, which reports back through
 * the loop; sends go to the peers without waiting.
 *
 * <p>A DBMS transaction of an action is tried again while the failure is one that passes (the database server is down
 * or restarting, a lost race; {@link RetryRule#durably}): the belt cannot go on without it, and the database is what a
 * restart would recover from anyway. Any other failure is thrown, and the loop stops the instance (fail-stop).
 */
final class BeltActions implements BeltLoop.Actions {

    /**
     * What the token does here, for the instance's watch on its ring and its metrics (docs/decisions.md, decision 18).
     * Called on the belt loop.
     */
    interface TokenEvents {
        TokenEvents NONE = new TokenEvents() {
            @Override
            public void sent(int to, long hop) {}

            @Override
            public void received(long hop, int updates) {}
        };

        /** The token of {@code hop} was sent to {@code to} (passed, or resent until acknowledged). */
        void sent(int to, long hop);

        /** The token of {@code hop} arrived and its {@code updates} were applied. */
        void received(long hop, int updates);

        /** A peer's message arrived, before the belt hears of it. */
        default void heard(Message message) {}
    }

    /** Where messages to the other instances of the ring go. */
    interface Peers {
        /** Best effort: a message may be lost; the belt resends what matters. Never blocks. */
        void send(int to, Message message);
    }

    private final int self;
    private final Database db;
    private final Peers peers;
    private final GlobalExecutor globals;
    private final SessionGate session;
    private final InstanceStats stats;
    private final BeltLoop loop;
    private final RetryRule retry;
    private final TokenEvents token;

    BeltActions(int self, Database db, Peers peers, GlobalExecutor globals, SessionGate session, InstanceStats stats,
                BeltLoop loop, BooleanSupplier closed) {
        this(self, db, peers, globals, session, stats, loop, closed, TokenEvents.NONE);
    }

    BeltActions(int self, Database db, Peers peers, GlobalExecutor globals, SessionGate session, InstanceStats stats,
                BeltLoop loop, BooleanSupplier closed, TokenEvents token) {
        this.token = token;
        this.self = self;
        this.db = db;
        this.peers = peers;
        this.globals = globals;
        this.session = session;
        this.stats = stats;
        this.loop = loop;
        this.retry = new RetryRule(self, db, closed);
    }

    @Override
    public void queued(long requestId, boolean holdsToken, boolean wasParked) {
        globals.queued(requestId, holdsToken, wasParked);
    }

    @Override
    public void refused(long requestId, int queued) {
        globals.refused(requestId, queued);
    }

    @Override
    public void received(Message message) {
        token.heard(message);
    }

    @Override
    public void perform(Action action) throws SQLException {
        if (action instanceof Action.Send send) {
            if (send.message() instanceof Message.TokenPass pass) token.sent(send.to(), pass.token().hop());
            peers.send(send.to(), send.message());
        }
        else if (action instanceof Action.ApplyUpdates apply) applyUpdates(apply);
        else if (action instanceof Action.ApplyAhead ahead) applyAhead(ahead);
        else if (action instanceof Action.ExecuteGlobal one) globals.execute(one);
        else if (action instanceof Action.ExecuteGlobals round) globals.execute(round);
        else if (action instanceof Action.CommitGlobal commit) globals.grant(commit);
        else if (action instanceof Action.PassToken pass) passToken(pass);
        else throw new IllegalStateException("the belt asked for an action this runtime cannot perform: " + action);
    }

    /** Algorithm 1, lines 8-12, atomically with recording the token and the last applied gsn. */
    private void applyUpdates(Action.ApplyUpdates apply) throws SQLException {
        globals.clock().tokenArrived();
        globals.tokenArrived();
        retry.durably("apply the updates of hop " + apply.token().hop(), (c, retry) -> {
            if (retry && receivedAlready(c, apply.token().hop())) return;
            UpdateApplier.applyAll(c, db.dialect(), apply.updates());
            MetadataStore.recordReceived(c, apply.token(), apply.lastGsn());
        });
        globals.clock().updatesApplied(apply.updates().size());
        applied(apply.updates().size(), apply.lastGsn());
        long hop = apply.token().hop();
        token.received(hop, apply.updates().size());
        loop.step(new BeltEvent.UpdatesApplied(hop));
    }

    /**
     * Updates that came ahead of the token (docs/decisions.md, decision 25), atomically with the last applied gsn;
     * local requests waiting for those gsns (the session guarantee) go on at once, and the belt hears of it once
     * committed (it may tell their maker, decision 26).
     */
    private void applyAhead(Action.ApplyAhead ahead) throws SQLException {
        retry.durably("apply the updates up to gsn " + ahead.lastGsn() + " ahead of the token", (c, retry) -> {
            if (retry && MetadataStore.lastGsn(c) >= ahead.lastGsn()) return; // the first attempt committed
            UpdateApplier.applyAll(c, db.dialect(), ahead.updates());
            MetadataStore.recordAppliedAhead(c, ahead.updates().get(0).gsn() - 1, ahead.lastGsn());
        });
        stats.updatesAhead.add(ahead.updates().size());
        applied(ahead.updates().size(), ahead.lastGsn());
        loop.step(new BeltEvent.AheadApplied(ahead));
    }

    /** Other instances' updates up to {@code lastGsn} are in the database: counted, and the session waiters go on. */
    private void applied(int updates, long lastGsn) {
        stats.updatesApplied.add(updates);
        stats.appliedGsn(lastGsn);
        session.advance(lastGsn);
    }

    /** Algorithm 1, line 19: recorded as passed first, so that a restart resends it instead of acting as primary. */
    private void passToken(Action.PassToken pass) throws SQLException {
        retry.durably("record the token of hop " + pass.token().hop() + " as passed",
                (c, retry) -> MetadataStore.recordPassed(c, pass.token()));
        stats.tokenPasses.increment();
        globals.releaseLocals(); // the round had none to run after all
        globals.clock().tokenPassed(pass.token().updates().size());
        token.sent(pass.to(), pass.token().hop());
        peers.send(pass.to(), new Message.TokenPass(self, pass.token()));
    }

    /**
     * The token's record of hop {@code hop} is in the database already: the attempt that applied its updates committed
     * although its connection broke before the answer came (a database server crash). Applying the updates again
     * would write their row images over whatever local requests wrote since, so the retry does nothing.
     */
    private boolean receivedAlready(Connection c, long hop) throws SQLException {
        DurableState recorded = MetadataStore.load(c, self);
        return recorded.tokenStatus() == DurableState.TokenStatus.HELD && recorded.token() != null
                && recorded.token().hop() == hop;
    }
}
