package dev.gyro.wire;

import dev.gyro.protocol.Codec;
import dev.gyro.protocol.MalformedMessageException;
import dev.gyro.protocol.Value;

import java.util.ArrayList;
import java.util.List;

/**
 * The outcome of one request.
 *
 * @param status     what happened
 * @param message    for anything but OK: what was wrong, in words
 * @param values     the transaction's result (empty for none)
 * @param instance   the instance that executed (or refused) it; -1 if none was reached
 * @param executedAs "local" or "global" when executed
 * @param gsn        for a global request that wrote: its gsn (carry it as {@link Request#afterGsn()} to read your
 *                   writes at any instance); otherwise 0
 */
public record Reply(Status status, String message, List<Value> values, int instance, String executedAs, long gsn) {

    public enum Status {
        /** Executed and committed. */
        OK,
        /** The transaction rolled itself back ({@link dev.gyro.wire.Reply#message()} says why); nothing written. */
        ABORTED,
        /** Unknown transaction or wrong parameters; nothing executed. */
        BAD_REQUEST,
        /** The transaction failed with an error and was rolled back; a global one shipped no update. */
        FAILED,
        /** The instance's queue of global requests is full; retry later. */
        OVERLOADED,
        /** The owning instance could not be reached; the outcome is unknown only if it was reached before. */
        UNAVAILABLE
    }

    /** The longest message a reply carries: what an error quotes of a request is cut, never echoed whole. */
    public static final int MAX_MESSAGE_CHARS = 2_000;
    /**
     * Part of the message of a global request its instance withdrew at its client's deadline, before it ran
     * (docs/decisions/37-request-ids.md): followed by how long it waited for the token.
     */
    public static final String WITHDRAWN = " at its client's deadline, after ";

    public Reply {
        values = List.copyOf(values);
        message = message == null ? "" : message;
        if (message.length() > MAX_MESSAGE_CHARS)
            message = message.substring(0, MAX_MESSAGE_CHARS) + "... (" + (message.length() - MAX_MESSAGE_CHARS)
                    + " more characters)";
        executedAs = executedAs == null ? "" : executedAs;
    }

    public static Reply error(Status status, String message, int instance) {
        return new Reply(status, message, List.of(), instance, "", 0);
    }

    public boolean ok() {
        return status == Status.OK;
    }

    /** The first result value, or NULL. */
    public Value value() {
        return values.isEmpty() ? Value.NULL : values.get(0);
    }

    public long longValue() {
        if (!(value() instanceof Value.Int i)) throw new IllegalStateException("reply has no integer result: " + this);
        return i.value();
    }

    public byte[] encode() {
        List<Value> all = new ArrayList<>(values.size() + 5);
        all.add(new Value.Int(status.ordinal()));
        all.add(new Value.Text(message));
        all.add(new Value.Int(instance));
        all.add(new Value.Text(executedAs));
        all.add(new Value.Int(gsn));
        all.addAll(values);
        return Codec.encodeValues(all);
    }

    public static Reply decode(byte[] bytes) {
        List<Value> all = Codec.decodeValues(bytes);
        if (all.size() < 5 || !(all.get(0) instanceof Value.Int st) || st.value() < 0
                || st.value() >= Status.values().length || !(all.get(1) instanceof Value.Text msg)
                || !(all.get(2) instanceof Value.Int inst) || !(all.get(3) instanceof Value.Text as)
                || !(all.get(4) instanceof Value.Int gsn))
            throw new MalformedMessageException("reply must start with status, message, instance, class and gsn");
        return new Reply(Status.values()[(int) st.value()], msg.value(), all.subList(5, all.size()),
                (int) inst.value(), as.value(), gsn.value());
    }

    @Override
    public String toString() {
        return status + (message.isEmpty() ? "" : " (" + message + ")") + " " + values
                + (instance >= 0 ? " at instance " + instance : "") + (executedAs.isEmpty() ? "" : " as " + executedAs)
                + (gsn > 0 ? " gsn " + gsn : "");
    }
}
