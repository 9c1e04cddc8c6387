package dev.gyro.app;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * One request a client session wants to make: a transaction name and its input parameters, and how long the
 * emulated user thinks before sending it (TPC-W's think time; 0 for a closed loop at full speed).
 *
 * @param transaction  the transaction's name ({@link Transaction#nameOf})
 * @param parameters   its input parameters, in order (Long, Integer, Double, Boolean, String or byte[])
 * @param thinkMillis  pause before the request is sent
 * @param interaction  what the user is doing, for reports (a web interaction of TPC-W or RUBiS); never null
 */
public record Call(String transaction, List<Object> parameters, long thinkMillis, String interaction) {

    public Call {
        if (transaction == null || transaction.isEmpty()) throw new IllegalArgumentException("a call needs a transaction");
        if (thinkMillis < 0) throw new IllegalArgumentException("think time must not be negative");
        parameters = Collections.unmodifiableList(new ArrayList<>(parameters)); // null parameters are allowed
        interaction = interaction == null ? transaction : interaction;
    }

    public static Call of(String transaction, Object... parameters) {
        return new Call(transaction, java.util.Arrays.asList(parameters), 0, transaction);
    }

    /** The same call, sent after the user thought for {@code millis}. */
    public Call afterThinking(long millis) {
        return new Call(transaction, parameters, millis, interaction);
    }

    /** The same call, reported as part of {@code name} (a web interaction). */
    public Call during(String name) {
        return new Call(transaction, parameters, thinkMillis, name);
    }

    public Object[] parameterArray() {
        return parameters.toArray();
    }

    @Override
    public String toString() {
        return transaction + parameters.toString().replace('[', '(').replace(']', ')');
    }
}
