package dev.gyro.app;

import java.util.SplittableRandom;

/**
 * How clients use an application: the request mix of a benchmark (TPC-W's shopping mix, RUBiS's bidding mix,
 * TPC-C's standard mix). A driver creates one {@link ClientSession} per emulated client and runs each in a closed
 * loop; the workload itself holds no mutable state and may be shared by all sessions.
 */
public interface Workload {

    /** A short description for reports, e.g. {@code "shopping mix, think time 0 ms"}. */
    String describe();

    /**
     * A new emulated client.
     *
     * @param index  the session's number, 0-based, unique within a run (sessions may use it to keep the ids they
     *               create apart)
     * @param random the session's own random source; derive it from the run's seed and {@code index}
     */
    ClientSession newSession(int index, SplittableRandom random);

    /**
     * A new emulated client that works on the partitions {@code homing} owns, where the transactions' semantics let
     * it choose (see {@link Homing}): what a client at one site of a WAN deployment does with its nearest instance.
     * Under {@link Homing#ANYWHERE} it sends exactly the calls of {@link #newSession(int, SplittableRandom)} for the
     * same random source.
     *
     * <p>The default ignores {@code homing}: a workload that does not implement it draws its keys as before.
     */
    default ClientSession newSession(int index, SplittableRandom random, Homing homing) {
        return newSession(index, random);
    }
}
