package dev.gyro.runtime;

import dev.gyro.app.BadRequestException;
import dev.gyro.app.Kind;
import dev.gyro.app.UserAbort;
import dev.gyro.wire.Reply;
import dev.gyro.wire.Request;
import dev.gyro.protocol.Value;
import dev.gyro.runtime.db.DatabaseHealth;
import dev.gyro.runtime.db.DeadlinePassedException;
import dev.gyro.runtime.db.Failures;
import dev.gyro.runtime.db.UnavailableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.reflect.UndeclaredThrowableException;
import java.util.List;

/** The replies an instance sends, built in one place: what a result looks like on the wire, what a failure says. */
final class Replies {

    private static final Logger log = LoggerFactory.getLogger(Replies.class);

    private final int self;
    /** How a reply names this instance: {@code instance 1 (host:port)}. */
    private final String named;
    private final InstanceStats stats;

    Replies(int self, InstanceStats stats) {
        this(self, null, stats);
    }

    /** @param address this instance's address, which replies that name it give (null: none) */
    Replies(int self, String address, InstanceStats stats) {
        this.self = self;
        this.named = "instance " + self + (address == null ? "" : " (" + address + ")");
        this.stats = stats;
    }

    Reply local(Object result) {
        return new Reply(Reply.Status.OK, "", values(result), self, Kind.LOCAL.label(), 0);
    }

    Reply global(Object result, long gsn) {
        return new Reply(Reply.Status.OK, "", values(result), self, Kind.GLOBAL.label(), gsn);
    }

    Reply error(Reply.Status status, String message) {
        return Reply.error(status, message, self);
    }

    /** A request that failed and rolled back: the application's abort, bad input, or an error. */
    Reply failure(Request request, Throwable e) {
        Throwable cause = e;
        while (cause instanceof UndeclaredThrowableException || cause instanceof RuntimeException
                && cause.getCause() != null && !(cause instanceof UserAbort) && !(cause instanceof BadRequestException))
            cause = cause.getCause();
        if (cause instanceof BadRequestException) return error(Reply.Status.BAD_REQUEST, cause.getMessage());
        if (cause instanceof UserAbort) {
            stats.aborted.increment();
            return error(Reply.Status.ABORTED, cause.getMessage());
        }
        stats.failed.increment();
        if (cause instanceof UnavailableException u) // its replicated group (decision 24)
            return error(Reply.Status.UNAVAILABLE, (u.outcomeUnknown() ? "outcome unknown: " : NOT_RUN)
                    + request.transaction() + ": " + u.getMessage());
        log.debug("request {} failed", request, e);
        return error(Reply.Status.FAILED, request.transaction() + " failed and was rolled back: " + cause);
    }

    /** How the message of a reply begins when the request surely changed nothing and may be sent again as it is. */
    static final String NOT_RUN = "not run: ";

    /** True for a reply whose request surely changed nothing (docs/decisions/37-request-ids.md). */
    static boolean notRun(Reply r) {
        return r.status() == Reply.Status.UNAVAILABLE && r.message().startsWith(NOT_RUN);
    }

    /** The replicated group's refusal in {@code e}'s causes (docs/decisions/24-ring-on-groups.md), or null. */
    static UnavailableException groupUnavailable(Throwable e) {
        for (int depth = 0; e != null && depth < 20; depth++, e = e.getCause() == e ? null : e.getCause())
            if (e instanceof UnavailableException u) return u;
        return null;
    }

    /**
     * A request this instance's database could not take, or whose commit it did not answer
     * (docs/decisions/37-request-ids.md): the instance is up, so the reply names its database, never the instance, as
     * what is unavailable, and says whether the request may have committed, and how its client learns whether it did.
     *
     * @param mayHaveCommitted the failure was the commit's: the database may have committed it without answering
     */
    Reply databaseUnavailable(Request request, Throwable e, boolean mayHaveCommitted, DatabaseHealth health) {
        stats.failed.increment();
        String up = named + " is up but its database is unavailable: "
                + (health.down() ? health.status().get("database") : DatabaseHealth.text(e));
        if (!mayHaveCommitted) return error(Reply.Status.UNAVAILABLE, NOT_RUN + up + notNow(request));
        return error(Reply.Status.UNAVAILABLE, "outcome unknown: " + up + "; the commit of " + request
                + " got no answer" + (request.id() == null ? ", and it may have committed"
                : ": send it again with the same id (" + request.id() + ") to learn its outcome; it runs at most once"));
    }

    /** A request whose client's deadline passed before it could commit: it rolled back (DeadlinePassedException). */
    Reply deadlinePassed(Request request, DeadlinePassedException e, DatabaseHealth health) {
        if (health.down()) return databaseUnavailable(request, e, false, health);
        stats.failed.increment();
        return error(Reply.Status.UNAVAILABLE, NOT_RUN + named + " could not run " + request + " before its"
                + " client's deadline (" + e.getMessage() + ")" + notNow(request));
    }

    /**
     * A global request withdrawn at its client's deadline while it waited for the token: it never runs
     * (docs/decisions/37-request-ids.md).
     */
    Reply withdrawn(Request request, long waitedMillis) {
        stats.failed.increment();
        return error(Reply.Status.UNAVAILABLE, NOT_RUN + named + " withdrew " + request + Reply.WITHDRAWN + waitedMillis + " ms waiting for the token" + notNow(request));
    }

    /**
     * What a request that did not run now changed: nothing; with an id, an earlier send of it may have run, which
     * sending it again with the same id tells.
     */
    private static String notNow(Request request) {
        return request.id() == null ? "; nothing of " + request + " was committed"
                : "; it did not run " + request + " now: send it again with the same id (" + request.id() + ")";
    }

    /**
     * A request with an id whose earlier run could not be looked up (docs/decisions/37-request-ids.md): it is not run,
     * since it may have run before.
     */
    Reply notLookedUp(Request request, Exception e, Failures failures) {
        DatabaseHealth health = failures.health();
        boolean unavailable = health.down() || e instanceof DeadlinePassedException
                || failures.kind(e) == Failures.Kind.UNREACHABLE;
        String why = !unavailable ? " cannot read its database: " + DatabaseHealth.text(e)
                : " is up but its database is unavailable: "
                + (health.down() ? health.status().get("database") : DatabaseHealth.text(e));
        return error(Reply.Status.UNAVAILABLE, NOT_RUN + named + why + "; it cannot tell whether " + request
                + " with id " + request.id() + " ran before, so it did not run it: send it again with the same id");
    }

    /** A global request whose transaction committed, but whose result was lost with its database connection. */
    Reply committedButLost(Request request, long gsn, Throwable e) {
        return error(Reply.Status.UNAVAILABLE, request.transaction() + " committed as gsn " + gsn
                + " but its result was lost with the connection to the database: " + e.getMessage());
    }

    Reply shuttingDown() {
        return error(Reply.Status.UNAVAILABLE, "instance " + self + " is shutting down");
    }

    static List<Value> values(Object result) {
        if (result == null) return List.of();
        if (result instanceof List<?> list) {
            Value[] out = new Value[list.size()];
            for (int i = 0; i < out.length; i++) out[i] = Value.of(list.get(i));
            return List.of(out); // immutable already: Reply does not copy it again
        }
        return List.of(Value.of(result));
    }

    /** The seed of a request's random source: distinct per request and instance (TxContext.random()). */
    long seed(long requestId) {
        return requestId * 0x9E3779B97F4A7C15L ^ ((long) self << 56);
    }
}
