package dev.gyro.runtime;

import dev.gyro.protocol.Action;
import dev.gyro.protocol.BeltEvent;
import dev.gyro.protocol.ConveyorBelt;
import dev.gyro.protocol.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The driver of the instance's {@link ConveyorBelt}, and the only thread that touches it (it must be called from one
 * thread at a time). Its inputs are {@link BeltEvent}s, a closed set, given to {@link #step} from any thread and
 * handled one at a time in the order given, each logged at debug level; after each, the actions the belt asks for are
 * performed in order, before the next event ({@link ConveyorBelt#ready()}), so that, for instance, a token is never
 * sent before it is recorded as passed.
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
final class BeltLoop implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(BeltLoop.class);

    /** What the loop does with the belt's answers; called on the loop's thread only. */
    interface Actions {
        /** Performs one action of the belt, as its Javadoc in {@link Action} demands; throwing stops the instance. */
        void perform(Action action) throws Exception;

        /** The belt took global request {@code requestId} into its queue; it held the token, parked or not, before. */
        void queued(long requestId, boolean holdsToken, boolean wasParked);

        /** The belt refused global request {@code requestId}: {@code queued} requests wait for the token already. */
        void refused(long requestId, int queued);

        /** {@code message} of a peer is about to be fed to the belt (the ring's watch sees each). */
        void received(Message message);
    }

    /** Sees each event handled and the actions it asked for, on the loop's thread (tests: record, then replay). */
    interface Recorder {
        Recorder NONE = (event, actions) -> {};

        void stepped(BeltEvent event, List<Action> actions);
    }

    /** The belt as of the last event handled: what the instance's statistics and a starting peer are told. */
    record View(ConveyorBelt.Role role, int queuedGlobals, RingAgreement.Position position, boolean waitsForTime) {}

    private final int self;
    private final ConveyorBelt belt;
    private final ExecutorService thread;
    private final Consumer<Throwable> failStop;
    private final Consumer<View> afterEach;
    private final Recorder recorder;
    private final LongSupplier clock;
    private volatile Actions actions;
    private volatile boolean stopped;

    /**
     * @param thread    one thread, the loop's
     * @param failStop  told (once) why the loop stopped the instance
     * @param afterEach sees the belt after each event and its actions
     * @param recorder  sees each event and its actions ({@link Recorder#NONE})
     * @param clock     the time {@link BeltEvent.Tick}s carry, in milliseconds
     */
    BeltLoop(int self, ConveyorBelt belt, ExecutorService thread, Consumer<Throwable> failStop,
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
    void start(Actions actions) {
        this.actions = actions;
        step(new BeltEvent.Start());
    }

    /** Hands the belt an event, on the loop thread, after those given before. Never blocks; dropped once stopped. */
    void step(BeltEvent event) {
        if (stopped) return;
        try {
            thread.execute(() -> handle(event));
        } catch (RejectedExecutionException e) {
            // stopping
        }
    }

    /** Stops the instance (fail-stop) once the events given before are handled. */
    void failStop(Throwable why) {
        step(new BeltEvent.FailStop(why.getMessage(), why));
    }

    private void handle(BeltEvent event) {
        // A belt that waits for no time has had no tick since the last event: it learns the time first. (A belt just
        // made knows it; a tick or a fail-stop needs no other.)
        if (!(event instanceof BeltEvent.Tick || event instanceof BeltEvent.Start || event instanceof BeltEvent.FailStop)
                && !belt.waitsForTime())
            handleOne(new BeltEvent.Tick(clock.getAsLong()));
        handleOne(event);
    }

    private void handleOne(BeltEvent event) {
        if (stopped) return;
        log.debug("instance {} step {}", self, event);
        List<Action> performed = recorder == Recorder.NONE ? null : new ArrayList<>();
        try {
            feed(event);
            for (List<Action> batch = belt.ready(); !batch.isEmpty(); batch = belt.ready())
                for (Action a : batch) {
                    if (stopped) return;
                    if (performed != null) performed.add(a);
                    actions.perform(a);
                }
            afterEach.accept(new View(belt.role(), belt.queuedGlobals(), RingAgreement.Position.of(belt),
                    belt.waitsForTime()));
        } catch (Stopping e) {
            stopped = true; // the instance is closing: what is left is decided by the database on restart
        } catch (Throwable t) {
            if (stopped) return;
            stopped = true;
            failStop.accept(t);
        } finally {
            if (performed != null) recorder.stepped(event, performed);
        }
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
