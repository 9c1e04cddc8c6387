package dev.gyro.agent;

import dev.gyro.app.TxContext;
import dev.gyro.app.UserAbort;

import java.sql.Connection;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The meeting point of one global call of an application's method and the request Gyro runs for it
 * (docs/decisions/34-attaching.md; a local call needs none, it runs on the application's thread). The request's body,
 * on the thread Gyro runs it on once the token and its commit turn allow, hands the application's thread the
 * request's connection ({@link #go}) and waits until the application commits or rolls back ({@link #done}); then the
 * request commits, or rolls back and ships nothing, as any request of Gyro's API does.
 */
final class Handoff {

    private static final Map<String, Handoff> OPEN = new ConcurrentHashMap<>();

    /**
     * What the application hears when its call lost a race as it committed: the application's work ran once and cannot
     * be run again by Gyro, so the application is told, as its database would tell it, to run the call again.
     */
    static final String LOST_RACE = "could not serialize access: the call lost a race with another as it committed;"
            + " run it again (SQLSTATE 40001)";

    final String id;
    /** The request's connection, once the call may run. */
    final CompletableFuture<Connection> go = new CompletableFuture<>();
    /** The application's decision: true to commit, false to roll back. */
    final CompletableFuture<Boolean> done = new CompletableFuture<>();
    private final AtomicBoolean ran = new AtomicBoolean();

    private Handoff(String id) {
        this.id = id;
    }

    static Handoff open(String id) {
        Handoff h = new Handoff(id);
        OPEN.put(id, h);
        return h;
    }

    void close() {
        OPEN.remove(id);
    }

    /**
     * The body of the request of call {@code id}: hands its connection over and waits for the application's decision.
     * The application's work runs once: a request Gyro would run again (a lost race) fails instead, and the application
     * sees the failure at its commit.
     */
    static Object body(TxContext ctx, String id) throws InterruptedException {
        Handoff h = OPEN.get(id);
        if (h == null) throw new UserAbort("the call " + id + " no longer waits to run");
        if (!h.ran.compareAndSet(false, true)) // Gyro runs a request again only after it lost a race (RetryRule)
            throw new UserAbort(LOST_RACE);
        h.go.complete(ctx.connection());
        boolean commit;
        try {
            commit = h.done.get();
        } catch (ExecutionException e) {
            throw new UserAbort("the application's call failed: " + e.getCause());
        }
        if (!commit) throw new UserAbort("rolled back by the application");
        return null;
    }
}
