package dev.gyro.apps;

import java.util.SplittableRandom;

/**
 * A client mix: the chosen mix's interaction frequencies and a mean think time, as TPC-W's and RUBiS's emulated
 * clients draw them. Each pick and each think time takes its draws from the session's own seeded random source.
 */
public final class WeightedMix {

    private final String name;
    private final double[] cumulative;
    private final long thinkMillis;

    /** @param weights relative frequency of each interaction, in the interactions' order */
    public WeightedMix(String name, double[] weights, long thinkMillis) {
        this.name = name;
        this.thinkMillis = thinkMillis;
        cumulative = new double[weights.length];
        double sum = 0;
        for (int i = 0; i < weights.length; i++) cumulative[i] = sum += weights[i];
    }

    /** The index of the next interaction (one draw), or {@code fallback} on rounding at the very top. */
    public int pick(SplittableRandom r, int fallback) {
        double x = r.nextDouble() * cumulative[cumulative.length - 1];
        for (int i = 0; i < cumulative.length; i++) if (x < cumulative[i]) return i;
        return fallback;
    }

    public long thinkMillis() {
        return thinkMillis;
    }

    /** A negative-exponential think time of the configured mean, capped at ten means; 0 (no draw) without one. */
    public long thinkTime(SplittableRandom r) {
        if (thinkMillis == 0) return 0;
        return Math.min(10 * thinkMillis, (long) (-thinkMillis * Math.log(1 - r.nextDouble())));
    }

    public String describe() {
        return name + " mix, think time " + (thinkMillis == 0 ? "0" : "mean " + thinkMillis) + " ms";
    }
}
