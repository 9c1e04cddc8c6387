package dev.gyro.app;

import java.util.List;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Which partitions a client session works on: the paper's clients "direct requests to the closest Gyro instance"
 * (Section VII-A), and its WAN latencies (Table III: 25-29 ms with an instance at every site) show they mostly work
 * on data that instance owns. A homed session draws the partitioning values of its requests (the parameters named
 * in the transaction's classification, {@code partitionBy}) so that {@link #owns} holds, wherever the transaction's
 * semantics let the client choose; ids the database assigns (a new cart, customer, user or auction) or rows the
 * session must refer to because it made them stay what they are, and a request the mix sends to another partition
 * on purpose (a TPC-C remote warehouse) still goes there.
 *
 * <p>Homing never changes the mix: the same interactions, with the same frequencies. It only re-draws a value,
 * from the session's own seeded random source and a bounded number of times ({@link #MAX_DRAWS}), so a homed
 * session's stream is as deterministic for a seed as an unhomed one. {@link #ANYWHERE} accepts every first draw:
 * a session homed anywhere sends exactly the calls of an unhomed one.
 *
 * <p>Called from the session's thread only; implementations must be cheap (a hash and a table lookup).
 */
@FunctionalInterface
public interface Homing {

    /**
     * Whether the partition of this partitioning value (a call parameter: Long, Integer, String, ...) is home. Values
     * are compared as Gyro routes them: an Integer and a Long of one number are one partition.
     */
    boolean owns(Object partitioningValue);

    /** No home: every value is acceptable, and every value is drawn once, as before homing existed. */
    Homing ANYWHERE = v -> true;

    /**
     * How often a value is re-drawn before the last draw is taken as it is (then its request is forwarded to its
     * owner: slower, still correct). A uniform key is home with probability 1/n with n instances, a pair of keys
     * (TPC-W's customer id and user name) with 1/n^2: at 5 instances 1000 draws miss with probability
     * (24/25)^1000, about 2e-18. The bound keeps a session from spinning when nothing is home (an instance that
     * owns no bucket, a key range smaller than the instance count).
     */
    int MAX_DRAWS = 1000;

    /** The first home value of up to {@link #MAX_DRAWS} draws, or the last draw. */
    default long draw(LongSupplier draw) {
        long v = draw.getAsLong();
        for (int n = 1; n < MAX_DRAWS && !owns(v); n++) v = draw.getAsLong();
        return v;
    }

    /** As {@link #draw(LongSupplier)} for a value that is home when {@code home} says so (several keys at once). */
    default <T> T drawWhere(Supplier<T> draw, Predicate<? super T> home) {
        T v = draw.get();
        for (int n = 1; n < MAX_DRAWS && !home.test(v); n++) v = draw.get();
        return v;
    }

    /**
     * The values of {@code values} that are home, in order: a client picks among what a page showed it. All of them
     * under {@link #ANYWHERE}, so a pick by index among them draws exactly as a pick among {@code values}.
     */
    default <T> List<T> homeOf(List<T> values) {
        return values.stream().filter(this::owns).toList();
    }
}
