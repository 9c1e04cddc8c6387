package dev.gyro.runtime;

import dev.gyro.protocol.Action;
import dev.gyro.protocol.ConveyorBelt;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The only thread that touches the instance's {@link ConveyorBelt} (it must be called from one thread at a time).
 * Events are handled one at a time, in the order they were submitted; after each, the actions the belt asks for are
 * performed in order, before the next event ({@link ConveyorBelt#ready()}), so that, for instance, a token is never
 * sent before it is recorded as passed.
 *
 * <p>Fail-stop (docs/decisions.md, decision 11): an event the belt rejects as a violation of its invariants, or an
 * action that cannot be performed, stops the instance through {@code failStop}; nothing after it is handled. The
 * instance never carries on with state the belt did not decide.
 */
final class BeltLoop implements AutoCloseable {

    /** Performs one action of the belt, as its Javadoc in {@link Action} demands. */
    interface Actions {
        void perform(Action action) throws Exception;
    }

    private final ConveyorBelt belt;
    private final ExecutorService thread;
    private final Consumer<Throwable> failStop;
    private final Consumer<ConveyorBelt> afterEach;
    private volatile Actions actions;
    private volatile boolean stopped;

    /**
     * @param thread    one thread, the loop's
     * @param failStop  told (once) why the loop stopped the instance
     * @param afterEach sees the belt after each event and its actions (statistics)
     */
    BeltLoop(ConveyorBelt belt, ExecutorService thread, Consumer<Throwable> failStop,
             Consumer<ConveyorBelt> afterEach) {
        this.belt = belt;
        this.thread = thread;
        this.failStop = failStop;
        this.afterEach = afterEach;
    }

    void start(Actions actions) {
        this.actions = actions;
        submit(b -> {}); // performs what the recovered belt asks for first (e.g. resend a passed token)
    }

    /** Hands the belt an event, on the loop thread, after those submitted before. Never blocks. */
    void submit(Consumer<ConveyorBelt> event) {
        if (stopped) return;
        try {
            thread.execute(() -> handle(event));
        } catch (RejectedExecutionException e) {
            // stopping
        }
    }

    private void handle(Consumer<ConveyorBelt> event) {
        if (stopped) return;
        try {
            event.accept(belt);
            for (List<Action> batch = belt.ready(); !batch.isEmpty(); batch = belt.ready())
                for (Action a : batch) {
                    if (stopped) return;
                    actions.perform(a);
                }
            afterEach.accept(belt);
        } catch (GlobalExecutor.Stopping e) {
            stopped = true; // the instance is closing: what is left is decided by the database on restart
        } catch (Throwable t) {
            if (stopped) return;
            stopped = true;
            failStop.accept(t);
        }
    }

    /**
     * Stops the instance (fail-stop) once the events submitted before are handled: something the belt's state rests on
     * is in doubt, and a restart recovers it from the database.
     */
    void failStop(Throwable why) {
        submit(b -> {
            throw new IllegalStateException(why.getMessage(), why);
        });
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
