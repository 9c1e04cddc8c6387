package dev.gyro.bench;

import dev.gyro.app.Call;
import dev.gyro.app.Outcome;
import dev.gyro.app.TxContext;
import dev.gyro.app.UserAbort;
import dev.gyro.protocol.Value;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

/**
 * What every baseline that runs the application's transactions itself (centralized, 2pc, the ShardingSphere peer)
 * does around a call, the same way Gyro's runtime does it: parameters as {@link Value}s, a {@link TxContext} whose
 * clock and random source stay fixed across retries, the result as values, and a failure as an outcome.
 */
public final class Invocations {

    private Invocations() {}

    public static List<Value> parameters(Call call) {
        List<Value> params = new ArrayList<>();
        for (Object p : call.parameters()) params.add(Value.of(p));
        return params;
    }

    /** The context of one attempt: the connection, and the request's fixed clock and seeded random source. */
    public static TxContext context(Connection c, long now, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        return new TxContext() {
            public Connection connection() { return c; }
            public long now() { return now; }
            public RandomGenerator random() { return random; }
        };
    }

    public static Outcome ok(Object result) {
        if (result == null) return Outcome.ok(List.of());
        List<Value> out = new ArrayList<>();
        if (result instanceof List<?> list) for (Object o : list) out.add(Value.of(o));
        else out.add(Value.of(result));
        return Outcome.ok(out);
    }

    /** A call that did not commit: ABORTED when the transaction aborted itself ({@link UserAbort}), else FAILED. */
    public static Outcome failed(Call call, Throwable e) {
        Throwable cause = e;
        while (cause != null && !(cause instanceof UserAbort)) cause = cause.getCause();
        if (cause != null) return new Outcome(Outcome.Status.ABORTED, List.of(), cause.getMessage());
        return new Outcome(Outcome.Status.FAILED, List.of(), call.transaction() + " failed: " + e);
    }
}
