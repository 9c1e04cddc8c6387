package dev.gyro.runtime;

import dev.gyro.app.BadRequestException;
import dev.gyro.app.Kind;
import dev.gyro.app.UserAbort;
import dev.gyro.wire.Reply;
import dev.gyro.wire.Request;
import dev.gyro.protocol.Value;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.reflect.UndeclaredThrowableException;
import java.util.List;

/** The replies an instance sends, built in one place: what a result looks like on the wire, what a failure says. */
final class Replies {

    private static final Logger log = LoggerFactory.getLogger(Replies.class);

    private final int self;
    private final InstanceStats stats;

    Replies(int self, InstanceStats stats) {
        this.self = self;
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
        if (cause instanceof dev.gyro.runtime.db.UnavailableException u) // its replicated group (decision 24)
            return error(Reply.Status.UNAVAILABLE, (u.outcomeUnknown() ? "outcome unknown: " : "not run: ")
                    + request.transaction() + ": " + u.getMessage());
        log.debug("request {} failed", request, e);
        return error(Reply.Status.FAILED, request.transaction() + " failed and was rolled back: " + cause);
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
