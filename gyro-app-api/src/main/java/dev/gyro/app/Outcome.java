package dev.gyro.app;

import dev.gyro.protocol.Value;

import java.util.List;

/**
 * What became of a {@link Call}, as the client saw it: the reply a {@link ClientSession} chooses its next call by.
 *
 * @param status  OK, ABORTED (the transaction threw {@link UserAbort}) or FAILED (anything else: an error, an
 *                overloaded or unreachable instance)
 * @param values  the transaction's result (empty unless OK)
 * @param message for anything but OK, what happened in words
 */
public record Outcome(Status status, List<Value> values, String message) {

    /** How a call ended: committed, rolled back by the transaction itself, or failed (nothing committed). */
    public enum Status { OK, ABORTED, FAILED }

    public Outcome {
        values = List.copyOf(values);
        message = message == null ? "" : message;
    }

    public static Outcome ok(List<Value> values) {
        return new Outcome(Status.OK, values, "");
    }

    public boolean ok() {
        return status == Status.OK;
    }

    /** The i-th result value as a long; fails loudly if the reply does not have one. */
    public long longAt(int i) {
        if (i >= values.size() || !(values.get(i) instanceof Value.Int v))
            throw new IllegalStateException("result " + i + " is not an integer in " + this);
        return v.value();
    }

    /** The first result value as a long. */
    public long longValue() {
        return longAt(0);
    }

    /** The i-th result value as a string (null for NULL). */
    public String textAt(int i) {
        if (i >= values.size()) throw new IllegalStateException("no result " + i + " in " + this);
        Object o = values.get(i).toJava();
        return o == null ? null : o.toString();
    }

    @Override
    public String toString() {
        return status + (message.isEmpty() ? "" : " (" + message + ")") + " " + values;
    }
}
