package dev.gyro.sim;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * A thread on simulated time, for the belt's driver ({@code dev.gyro.driver.BeltLoop}) to run on in a simulation: tasks
 * run one at a time in the order given, each as an event of its own, {@code delay} after it was given. Shut down, it
 * refuses new tasks and drops those not run yet (a crash).
 */
public final class SimulatedThread extends AbstractExecutorService {

    /** Where tasks run: the simulation's events. */
    public interface Schedule {
        /** Runs {@code event} {@code delay} time units from now. */
        void after(long delay, Runnable event);
    }

    private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
    private final Schedule schedule;
    private final LongSupplier delay;
    private final Consumer<Runnable> run;
    private boolean shut;

    /**
     * @param delay how long after it was given a task runs (drawn anew for each; tasks still run in the order given)
     * @param run   runs one task (and may look at what it did)
     */
    public SimulatedThread(Schedule schedule, LongSupplier delay, Consumer<Runnable> run) {
        this.schedule = schedule;
        this.delay = delay;
        this.run = run;
    }

    /** No task waits to run. */
    public boolean idle() {
        return tasks.isEmpty();
    }

    @Override
    public void execute(Runnable task) {
        if (shut) throw new RejectedExecutionException("the simulated instance stopped");
        tasks.add(task);
        schedule.after(delay.getAsLong(), this::runNext);
    }

    private void runNext() {
        Runnable task = shut ? null : tasks.poll();
        if (task != null) run.accept(task);
    }

    @Override
    public void shutdown() {
        shut = true;
        tasks.clear();
    }

    @Override
    public List<Runnable> shutdownNow() {
        List<Runnable> left = List.copyOf(tasks);
        shutdown();
        return left;
    }

    @Override
    public boolean isShutdown() {
        return shut;
    }

    @Override
    public boolean isTerminated() {
        return shut;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return shut;
    }
}
