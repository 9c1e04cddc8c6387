package dev.gyro.agent;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;

/**
 * The transactions Gyro runs for calls of an application's methods: their body is the application's own thread
 * ({@link Handoff}); their parameters are the call's id and its partitioning values, as text (a value routes the same
 * whichever method it came from, so two methods partitioned by one key route alike).
 */
final class CallTransactions {

    private CallTransactions() {}

    /** A call with no partitioning value. */
    public static final class Keyless implements Transaction {
        public Object run(TxContext ctx, String call) throws Exception {
            return Handoff.body(ctx, call);
        }
    }

    /** A call with one partitioning value. */
    public static final class OneKey implements Transaction {
        public Object run(TxContext ctx, String call, String key0) throws Exception {
            return Handoff.body(ctx, call);
        }
    }

    /** A call with two partitioning values (local-or-global). */
    public static final class TwoKeys implements Transaction {
        public Object run(TxContext ctx, String call, String key0, String key1) throws Exception {
            return Handoff.body(ctx, call);
        }
    }

    /** The transaction for a method with {@code keys} partitioning values. */
    static Transaction forKeys(int keys) {
        return switch (keys) {
            case 0 -> new Keyless();
            case 1 -> new OneKey();
            case 2 -> new TwoKeys();
            default -> throw new IllegalArgumentException("at most two partitioning values, not " + keys);
        };
    }

    /** The names of those parameters that are partitioning values. */
    static java.util.List<String> keyNames(int keys) {
        return java.util.List.of("key0", "key1").subList(0, keys);
    }
}
