package dev.gyro.driver;

import dev.gyro.protocol.Action;
import dev.gyro.protocol.BeltEvent;
import dev.gyro.protocol.ConveyorBelt;
import dev.gyro.protocol.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The driver of an instance's {@link ConveyorBelt}, and the only thread that touches it (it must be called from one
 * thread at a time). Its inputs are {@link BeltEvent}s, a closed set, given to {@link #step} from any thread and
 * handled one at a time in the order given, each logged at debug level; after each, the actions the belt asks for are
 * performed in order, before the next event ({@link ConveyorBelt#ready()}), so that, for instance, a token is never
 * sent before it is recorded as passed. The runtime runs it on a thread of its own; the simulator runs the same loop on
 * its simulated time.
 *
 * <p>A durable action (an {@link Action} that a transaction must commit) is done when the {@link CompletionStage}
 * that {@link Actions#perform} returns is: at once where the store's transaction returns only once committed (the
 * runtime's), later where a commit takes time of its own (a replicated group's log, as the simulator models it). Until
 * then the loop performs nothing further and holds the events given meanwhile, which it then handles in the order given,
 * so the belt sees the same order of events either way.
 *
 * <p>Time: the belt needs {@link BeltEvent.Tick}s only while it {@link ConveyorBelt#waitsForTime() waits for time}
 * (the {@link View} says so after each event, and the instance's timer ticks only then). After a pause without ticks,
 * the loop tells the belt the time ({@code clock}) with one tick of its own before the next event, so that what the
 * belt schedules from it (a resend) counts from now (docs/decisions/30-idle-ring-no-ticks.md).
 *
 * <p>Fail-stop (docs/decisions/11-fail-stop.md): an event the belt rejects as a violation of its invariants, an action
 * that cannot be performed, or a {@link BeltEvent.FailStop} stops the instance through {@code failStop}; nothing after
 * it is handled. The instance never carries on with state the belt did not decide.
 */
public final class BeltLoop implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(BeltLoop.class);

    /** An action that is done when it returns. */
    public static final CompletionStage<Void> DONE = CompletableFuture.completedStage(null);

    /** What the loop does with the belt's answers; called on the loop's thread only. */
    public interface Actions {
        /**
         * Performs one action of the belt, as its Javadoc in {@link Action} demands; throwing, or a stage that
         * completes exceptionally, stops the instance.
         *
         * @return {@link #DONE}, or a stage that completes once the action is (the loop waits for it)
         */
        CompletionStage<Void> perform(Action action) throws Exception;

        /** The belt took global request {@code requestId} into its queue; it held the token, parked or not, before. */
        void queued(long requestId, boolean holdsToken, boolean wasParked);

        /** The belt refused global request {@code requestId}: {@code queued} requests wait for the token already. */
        void refused(long requestId, int queued);

        /** {@code message} of a peer is about to be fed to the belt (the ring's watch sees each). */
        void received(Message message);
    }

    /** Sees each event handled and the actions it asked for, on the loop's thread (tests: record, then replay). */
    public interface Recorder {
        Recorder NONE = (event, actions) -> {};

        /** {@code event} is about to be fed to the belt. */
        default void handling(BeltEvent event) {}

        /** {@code action}, which the belt asked for, is about to be performed. */
        default void performing(Action action) {}

        /** {@code event} was handled: the belt asked for {@code actions}, all performed. */
        void stepped(BeltEvent event, List<Action> actions);
    }

    /**
     * The belt as of the last event handled: what the instance's statistics and a starting peer are told (the belt's
     * position in the ring: the last hop it received, the last its successor acknowledged, its last gsn).
     */
    public record View(ConveyorBelt.Role role, int queuedGlobals, long receivedHop, long successorHasHop, long lastGsn,
                       boolean waitsForTime) {}

    private final int self;
    private final ConveyorBelt belt;
    private final ExecutorService thread;
    private final Consumer<Throwable> failStop;
    private final Consumer<View> afterEach;
    private final Recorder recorder;
    private final LongSupplier clock;
    private volatile Actions actions;
    private volatile boolean stopped;

    // On the loop's thread: the event whose actions are being performed, those still to perform, and whether one of
    // them is under way (then events given meanwhile wait in held).
    private BeltEvent current;
    private List<Action> performed;
    private final ArrayDeque<Action> toPerform = new ArrayDeque<>();
    private boolean awaiting;
    private final ArrayDeque<BeltEvent> held = new ArrayDeque<>();

    /**
     * @param thread    one thread, the loop's
     * @param failStop  told (once) why the loop stopped the instance
     * @param afterEach sees the belt after each event and its actions
     * @param recorder  sees each event and its actions ({@link Recorder#NONE})
     * @param clock     the time {@link BeltEvent.Tick}s carry, in milliseconds
     */
    public BeltLoop(int self, ConveyorBelt belt, ExecutorService thread, Consumer<Throwable> failStop,
                    Consumer<View> afterEach, Recorder recorder, LongSupplier clock) {
        this.self = self;
        this.belt = belt;
        this.thread = thread;
        this.failStop = failStop;
        this.afterEach = afterEach;
        this.recorder = recorder;
        this.clock = clock;
    }

    /** Starts performing the belt's actions with {@code actions}: first what the recovered belt asks for. */
    public void start(Actions actions) {
        this.actions = actions;
        step(new BeltEvent.Start());
    }

    /** Hands the belt an event, on the loop thread, after those given before. Never blocks; dropped once stopped. */
    public void step(BeltEvent event) {
        if (stopped) return;
        try {
            thread.execute(() -> handle(event));
        } catch (RejectedExecutionException e) {
            // stopping
        }
    }

    /** Stops the instance (fail-stop) once the events given before are handled. */
    public void failStop(Throwable why) {
        step(new BeltEvent.FailStop(why.getMessage(), why));
    }

    private void handle(BeltEvent event) {
        if (awaiting) {
            held.add(event);
            return;
        }
        // A belt that waits for no time has had no tick since the last event: it learns the time first. (A belt just
        // made knows it; a tick or a fail-stop needs no other.)
        if (!(event instanceof BeltEvent.Tick || event instanceof BeltEvent.Start || event instanceof BeltEvent.FailStop)
                && !belt.waitsForTime())
            handleOne(new BeltEvent.Tick(clock.getAsLong()));
        if (awaiting) held.add(event);
        else handleOne(event);
    }

    private void handleOne(BeltEvent event) {
        if (stopped) return;
        log.debug("instance {} step {}", self, event);
        current = event;
        performed = recorder == Recorder.NONE ? null : new ArrayList<>();
        try {
            recorder.handling(event);
            feed(event);
            receivedHop = belt.lastReceivedHop(); // before the actions: a round's requests read it
            performAll();
        } catch (Throwable t) {
            recorded();
            stop(t);
        }
    }

    /**
     * Performs the current event's actions, and what the belt asks for after them, until none is left or one is under
     * way ({@link #awaiting}; {@link #resume} goes on once it is done).
     */
    private void performAll() throws Throwable {
        while (true) {
            if (toPerform.isEmpty()) toPerform.addAll(belt.ready());
            Action a = toPerform.poll();
            if (a == null) break;
            if (stopped) return;
            if (performed != null) performed.add(a);
            recorder.performing(a);
            CompletableFuture<Void> done = actions.perform(a).toCompletableFuture();
            if (!done.isDone()) {
                awaiting = true;
                done.whenComplete((v, failed) -> {
                    try {
                        thread.execute(() -> resume(failed));
                    } catch (RejectedExecutionException e) {
                        // stopping
                    }
                });
                return;
            }
            done.join();
        }
        recorded();
        afterEach.accept(new View(belt.role(), belt.queuedGlobals(), belt.lastReceivedHop(), belt.successorHasHop(),
                belt.lastGsn(), belt.waitsForTime()));
    }

    private volatile long receivedHop = -1;

    /**
     * The hop of the token this instance last received, as of the event whose actions are being performed: while a
     * round runs, the hop it holds (a ring change is made at that hop, docs/decisions/44-ring-changes.md). Any thread.
     */
    public long receivedHop() {
        return receivedHop;
    }

    /** A durable action under way is done ({@code failed} null) or failed: what was held goes on. */
    private void resume(Throwable failed) {
        if (stopped) return;
        awaiting = false;
        try {
            if (failed != null) throw failed instanceof CompletionException c && c.getCause() != null ? c.getCause() : failed;
            performAll();
        } catch (Throwable t) {
            recorded();
            stop(t);
            return;
        }
        while (!awaiting && !held.isEmpty() && !stopped) handle(held.poll());
    }

    /** The current event and the actions it asked for, to the recorder. */
    private void recorded() {
        if (performed != null && current != null) recorder.stepped(current, performed);
        current = null;
    }

    private void stop(Throwable t) {
        if (t instanceof CompletionException c && c.getCause() != null) t = c.getCause();
        if (t instanceof Stopping) {
            stopped = true; // the instance is closing: what is left is decided by the database on restart
            return;
        }
        if (stopped) return;
        stopped = true;
        failStop.accept(t);
    }
    /** The event to the belt; the answers that depend on it to {@link Actions}. */
    private void feed(BeltEvent event) {
        if (event instanceof BeltEvent.MessageReceived m) {
            actions.received(m.message());
            try {
                belt.step(m);
            } catch (IllegalArgumentException e) { // from no member of the ring, or out of ring order: dropped
                log.warn("instance {} rejected a message: {}", self, e.getMessage());
            }
        } else if (event instanceof BeltEvent.GlobalRequest g) {
            boolean wasParked = belt.role() == ConveyorBelt.Role.PARKED;
            if (belt.step(g)) actions.queued(g.requestId(), belt.holdsToken(), wasParked);
            else actions.refused(g.requestId(), belt.queuedGlobals());
        } else {
            belt.step(event);
        }
    }

    @Override
    public void close() {
        stopped = true;
        thread.shutdownNow();
        try {
            thread.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
