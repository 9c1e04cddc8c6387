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
 */
public record Request(String transaction, List<Value> parameters, boolean forwarded, long afterGsn) {

    public Request {
        parameters = List.copyOf(parameters);
    }

    public static Request of(String transaction, Object... parameters) {
        List<Value> values = new ArrayList<>(parameters.length);
        for (Object p : parameters) values.add(Value.of(p));
        return new Request(transaction, values, false, 0);
    }

    public Request asForwarded() {
        return new Request(transaction, parameters, true, afterGsn);
    }

    public byte[] encode() {
        List<Value> all = new ArrayList<>(parameters.size() + 3);
        all.add(new Value.Text(transaction));
        all.add(new Value.Int(forwarded ? 1 : 0));
        all.add(new Value.Int(afterGsn));
        all.addAll(parameters);
        return Codec.encodeValues(all);
    }

    public static Request decode(byte[] bytes) {
        List<Value> all = Codec.decodeValues(bytes);
        if (all.size() < 3 || !(all.get(0) instanceof Value.Text name) || !(all.get(1) instanceof Value.Int flags)
                || !(all.get(2) instanceof Value.Int after))
            throw new MalformedMessageException("request must start with a transaction name, flags and a gsn");
        return new Request(name.value(), all.subList(3, all.size()), flags.value() == 1, after.value());
    }

    @Override
    public String toString() {
        return transaction + parameters.toString().replace('[', '(').replace(']', ')');
    }
}
