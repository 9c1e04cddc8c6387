package dev.gyro.wire;

import dev.gyro.protocol.Codec;
import dev.gyro.protocol.MalformedMessageException;
import dev.gyro.protocol.Value;

import java.util.ArrayList;
import java.util.List;

/**
 * A request: a transaction name and concrete values for its input parameters (paper Section IV).
 *
 * @param transaction the transaction's name
 * @param parameters  its input parameters, in order
 * @param forwarded   true when an instance forwarded it to the owner of its partition (never forwarded twice)
 * @param afterGsn    session guarantee: the instance runs it only once it has applied this gsn (0: none)
 * @param id          the client's id of the request (a UUID), or null: a request with an id that changed the database is
 *                    answered from its recorded reply when it comes again, instead of running twice (a client's retry
 *                    after an unknown outcome, or across a failover of a replicated group;
 *                    docs/decisions/37-request-ids.md, docs/decisions/24-ring-on-groups.md). {@code GyroClient} gives
 *                    every request that has none an id of its own
 */
public record Request(String transaction, List<Value> parameters, boolean forwarded, long afterGsn, String id) {

    private static final int FORWARDED = 1;
    private static final int HAS_ID = 2;

    public Request {
        parameters = List.copyOf(parameters);
        if (id != null) {
            try {
                java.util.UUID.fromString(id);
            } catch (IllegalArgumentException e) {
                throw new MalformedMessageException("a request id is a UUID, not '" + id + "'");
            }
        }
    }

    public Request(String transaction, List<Value> parameters, boolean forwarded, long afterGsn) {
        this(transaction, parameters, forwarded, afterGsn, null);
    }

    public static Request of(String transaction, Object... parameters) {
        List<Value> values = new ArrayList<>(parameters.length);
        for (Object p : parameters) values.add(Value.of(p));
        return new Request(transaction, values, false, 0);
    }

    public Request asForwarded() {
        return new Request(transaction, parameters, true, afterGsn, id);
    }

    /** This request with {@code afterGsn} (a session's). */
    public Request after(long gsn) {
        return new Request(transaction, parameters, forwarded, gsn, id);
    }

    /** This request with the id {@code requestId}. */
    public Request withId(String requestId) {
        return new Request(transaction, parameters, forwarded, afterGsn, requestId);
    }

    public byte[] encode() {
        List<Value> all = new ArrayList<>(parameters.size() + 4);
        all.add(new Value.Text(transaction));
        all.add(new Value.Int((forwarded ? FORWARDED : 0) | (id != null ? HAS_ID : 0)));
        all.add(new Value.Int(afterGsn));
        if (id != null) all.add(new Value.Text(id));
        all.addAll(parameters);
        return Codec.encodeValues(all);
    }

    public static Request decode(byte[] bytes) {
        List<Value> all = Codec.decodeValues(bytes);
        if (all.size() < 3 || !(all.get(0) instanceof Value.Text name) || !(all.get(1) instanceof Value.Int flags)
                || !(all.get(2) instanceof Value.Int after))
            throw new MalformedMessageException("request must start with a transaction name, flags and a gsn");
        if ((flags.value() & ~(FORWARDED | HAS_ID)) != 0)
            throw new MalformedMessageException("request flags " + flags.value() + " are not a combination of "
                    + FORWARDED + " (forwarded) and " + HAS_ID + " (has an id)");
        boolean hasId = (flags.value() & HAS_ID) != 0;
        String id = null;
        if (hasId) {
            if (all.size() < 4 || !(all.get(3) instanceof Value.Text t))
                throw new MalformedMessageException("request flags say an id follows the gsn, but none does");
            id = t.value();
        }
        return new Request(name.value(), all.subList(hasId ? 4 : 3, all.size()), (flags.value() & FORWARDED) != 0,
                after.value(), id);
    }

    @Override
    public String toString() {
        String s = transaction + parameters.toString().replace('[', '(').replace(']', ')');
        return s.length() <= 200 ? s : s.substring(0, 200) + "... (" + (s.length() - 200) + " more characters)";
    }
}
