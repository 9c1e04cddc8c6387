package dev.gyro.driver;

import dev.gyro.protocol.Action;
import dev.gyro.protocol.BeltEvent;
import dev.gyro.protocol.Message;
import dev.gyro.protocol.Token;

import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * Performs the Conveyor Belt's actions on the instance, each as {@link Action}'s Javadoc demands, on the belt loop
 * thread ({@link BeltLoop}). It depends only on the small interfaces below, each of which a deterministic environment
 * can stand in for: the belt's durable duties ({@link BeltStore}: applying a token's updates, updates sent ahead,
 * recording a token as passed, each one transaction done in order here), the other instances ({@link Peers}: sends
 * never wait), the execution of global requests ({@link Globals}, which reports back through the loop), and what the
 * instance observes of its progress ({@link Progress}).
 *
 * <p>A durable duty that fails stops the instance: the loop's fail-stop (docs/decisions/11-fail-stop.md). Trying it
 * again while the failure passes is the store's own duty. The runtime's store returns once its transaction committed;
 * a store whose commit takes time of its own (the simulator's replicated group, whose log commits later) returns a
 * stage that completes then, and the loop waits for it ({@link BeltLoop}).
 */
public final class BeltActions implements BeltLoop.Actions {

    /**
     * The belt's durable duties, each one transaction (see each {@link Action}): each returns {@link BeltLoop#DONE}
     * once committed, or a stage that completes once it is.
     */
    public interface BeltStore {
        /** Algorithm 1, lines 8-12: the updates applied and the token recorded as held with the last gsn, at once. */
        CompletionStage<Void> applyUpdates(Action.ApplyUpdates apply) throws Exception;

        /** Updates sent ahead of the token (decision 25) applied with the last applied gsn, at once. */
        CompletionStage<Void> applyAhead(Action.ApplyAhead ahead) throws Exception;

        /** Algorithm 1, line 19: the token recorded as passed, before it is sent. */
        CompletionStage<Void> recordPassed(Token token) throws Exception;
    }

    /** Where messages to the other instances of the ring go. */
    public interface Peers {
        /** Best effort: a message may be lost; the belt resends what matters. Never blocks. */
        void send(int to, Message message);
    }

    /**
     * The execution of global requests (Algorithm 1, lines 6 and 14-18): told what the belt decided, on the belt loop,
     * which it never blocks; it reports each request back as a {@link BeltEvent}.
     */
    public interface Globals {
        /** The belt took request {@code requestId} into its queue Q. */
        void queued(long requestId, boolean holdsToken, boolean wasParked);

        /** The belt refused request {@code requestId} ({@code queued} wait already): its client is answered. */
        void refused(long requestId, int queued);

        /** The token arrived; its updates are about to be applied. */
        void tokenArrived();

        /** The token's {@code updates} are applied. */
        default void updatesApplied(int updates) {}

        /** The token, carrying {@code updates}, is recorded as passed. */
        default void tokenPassed(int updates) {}

        void execute(Action.ExecuteGlobal one);

        void execute(Action.ExecuteGlobals round);

        void grant(Action.CommitGlobal commit);
    }

    /** What the instance observes of the belt's progress (statistics, session gate, ring watch). On the belt loop. */
    public interface Progress {
        /** Observes nothing. */
        Progress NONE = new Progress() {
            @Override
            public void applied(int updates, long lastGsn, boolean ahead) {}

            @Override
            public void tokenReceived(long hop, int updates) {}

            @Override
            public void tokenSent(int to, long hop, boolean passed) {}

            @Override
            public void heard(Message message) {}
        };

        /** Other instances' {@code updates} up to {@code lastGsn} are durable here ({@code ahead} of the token). */
        void applied(int updates, long lastGsn, boolean ahead);

        /** The token of {@code hop} arrived with {@code updates}, now applied. */
        void tokenReceived(long hop, int updates);

        /** The token of {@code hop} was sent to {@code to}: {@code passed} on, or resent until acknowledged. */
        void tokenSent(int to, long hop, boolean passed);

        /** A peer's message arrived, before the belt hears of it. */
        void heard(Message message);
    }

    private final int self;
    private final BeltStore store;
    private final Peers peers;
    private final Globals globals;
    private final Consumer<BeltEvent> step;
    private final Progress progress;

    /** @param step hands an event to the belt loop (the completion of a durable duty) */
    public BeltActions(int self, BeltStore store, Peers peers, Globals globals, Consumer<BeltEvent> step, Progress progress) {
        this.self = self;
        this.store = store;
        this.peers = peers;
        this.globals = globals;
        this.step = step;
        this.progress = progress;
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
        progress.heard(message);
    }

    @Override
    public CompletionStage<Void> perform(Action action) throws Exception {
        if (action instanceof Action.Send send) {
            if (send.message() instanceof Message.TokenPass pass)
                progress.tokenSent(send.to(), pass.token().hop(), false);
            peers.send(send.to(), send.message());
            return BeltLoop.DONE;
        }
        if (action instanceof Action.ApplyUpdates apply) return applyUpdates(apply);
        if (action instanceof Action.ApplyAhead ahead) return applyAhead(ahead);
        if (action instanceof Action.PassToken pass) return passToken(pass);
        if (action instanceof Action.ExecuteGlobal one) globals.execute(one);
        else if (action instanceof Action.ExecuteGlobals round) globals.execute(round);
        else if (action instanceof Action.CommitGlobal commit) globals.grant(commit);
        else throw new IllegalStateException("the belt asked for an action this driver cannot perform: " + action);
        return BeltLoop.DONE;
    }

    /** Algorithm 1, lines 8-12, atomically with recording the token and the last applied gsn. */
    private CompletionStage<Void> applyUpdates(Action.ApplyUpdates apply) throws Exception {
        globals.tokenArrived();
        return store.applyUpdates(apply).thenRun(() -> {
            globals.updatesApplied(apply.updates().size());
            progress.applied(apply.updates().size(), apply.lastGsn(), false);
            long hop = apply.token().hop();
            progress.tokenReceived(hop, apply.updates().size());
            step.accept(new BeltEvent.UpdatesApplied(hop));
        });
    }

    /**
     * Updates that came ahead of the token (docs/decisions/25-updates-ahead.md), atomically with the last applied gsn;
     * local requests waiting for those gsns (the session guarantee) go on at once, and the belt hears of it once
     * committed (it may tell their maker, decision 26).
     */
    private CompletionStage<Void> applyAhead(Action.ApplyAhead ahead) throws Exception {
        return store.applyAhead(ahead).thenRun(() -> {
            progress.applied(ahead.updates().size(), ahead.lastGsn(), true);
            step.accept(new BeltEvent.AheadApplied(ahead));
        });
    }

    /** Algorithm 1, line 19: recorded as passed first, so that a restart resends it instead of acting as primary. */
    private CompletionStage<Void> passToken(Action.PassToken pass) throws Exception {
        return store.recordPassed(pass.token()).thenRun(() -> {
            globals.tokenPassed(pass.token().updates().size()); // lets local requests in: the round had none to run
            progress.tokenSent(pass.to(), pass.token().hop(), true);
            peers.send(pass.to(), new Message.TokenPass(self, pass.token()));
        });
    }
}
