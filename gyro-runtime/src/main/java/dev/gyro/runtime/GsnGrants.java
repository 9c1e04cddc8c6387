package dev.gyro.runtime;

import dev.gyro.driver.Stopping;
import dev.gyro.protocol.Action;
import dev.gyro.protocol.BeltEvent;

import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;

/**
 * Parallel rounds (paper Appendix B; docs/decisions/06-commit-ordering.md): each request of the round asks the belt for
 * its gsn when it is ready to commit ({@link BeltEvent.ReadyToCommit}) and waits for the belt's
 * {@link Action.CommitGlobal}, so gsn order is commit order. A grant whose attempt did not commit is given back
 * ({@link BeltEvent.CommitAborted}).
 *
 * <p>Threads: {@link #expect} and {@link #grant} on the belt loop, which they never block; {@link #gsnFor} and
 * {@link #aborted} on the request's global thread, which {@link #gsnFor} blocks until the grant.
 */
final class GsnGrants implements GlobalAttempts.GsnSource {

    /** How a request's global thread waits for its grant. */
    interface Await {
        /** Today's wait: the global thread blocks until the belt loop grants, or the instance stops. */
        Await BLOCK = CompletableFuture::get;

        /** Waits until {@code grant} is done, and returns its gsn. */
        long gsn(CompletableFuture<Long> grant) throws InterruptedException, ExecutionException;
    }

    private final Map<Long, CompletableFuture<Long>> grants = new ConcurrentHashMap<>();
    private final PhaseClock clock;
    private final Consumer<BeltEvent> step;
    private final Await await;

    /** @param step hands an event to the belt loop */
    GsnGrants(PhaseClock clock, Consumer<BeltEvent> step) {
        this(clock, step, Await.BLOCK);
    }

    /**
     * As {@link #GsnGrants(PhaseClock, Consumer)}, with {@code await} instead of {@link Await#BLOCK}: a deterministic
     * test, whose global threads take turns with the belt loop, passes one that hands the turn back while it waits.
     */
    GsnGrants(PhaseClock clock, Consumer<BeltEvent> step, Await await) {
        this.clock = clock;
        this.step = step;
        this.await = await;
    }

    /** Request {@code requestId} of the round handed out will ask for a gsn. */
    void expect(long requestId) {
        grants.put(requestId, new CompletableFuture<>());
    }

    /**
     * {@link Action.CommitGlobal}: the belt grants a waiting request its gsn.
     *
     * @throws IllegalStateException when no request waits for one (the belt and the shell disagree: fail-stop)
     */
    void grant(Action.CommitGlobal commit) {
        CompletableFuture<Long> f = grants.get(commit.requestId());
        if (f == null || !f.complete(commit.gsn()))
            throw new IllegalStateException("the belt granted gsn " + commit.gsn() + " to global request "
                    + commit.requestId() + ", which does not wait for one");
    }

    /** @throws Stopping when the instance stops while the request waits */
    @Override
    public long gsnFor(long requestId, PhaseClock.Timeline timeline) throws InterruptedException {
        CompletableFuture<Long> f = grants.computeIfAbsent(requestId, k -> new CompletableFuture<>());
        long asked = System.nanoTime();
        step.accept(new BeltEvent.ReadyToCommit(requestId));
        try {
            return await.gsn(f);
        } catch (ExecutionException | CancellationException e) {
            throw new Stopping();
        } finally {
            clock.grantedSince(timeline, asked);
        }
    }

    /** The granted gsn stays unused; a new grant is asked for when the request is ready again. */
    @Override
    public void aborted(long requestId) {
        if (grants.replace(requestId, new CompletableFuture<>()) != null)
            step.accept(new BeltEvent.CommitAborted(requestId));
    }

    /** Request {@code requestId} is over, committed or not. */
    void done(long requestId) {
        grants.remove(requestId);
    }

    /** The instance stops: every request waiting for a grant ends with {@link Stopping}. */
    void cancelAll() {
        for (CompletableFuture<Long> f : grants.values()) f.cancel(false);
    }
}
