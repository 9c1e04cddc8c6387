package dev.gyro.sim;

import java.util.List;
import java.util.Map;

/**
 * The outcome of one simulated run.
 *
 * @param settings         the seed and every fault setting
 * @param failure          what a checker found, or null if the run passed
 * @param fates            how many submitted requests ended how
 * @param gsns             length of the canonical sequence of state updates
 * @param messages         messages sent
 * @param crashes          instance crashes
 * @param events           simulation events processed
 * @param simulatedMillis  simulated time at the end of the run
 * @param trace            every event, if the run was traced
 */
public record SimResult(SimSettings settings, String failure, Map<HistoryChecker.Fate, Integer> fates, long gsns,
                        long messages, long crashes, long events, long simulatedMillis, List<String> trace) {

    public boolean ok() {
        return failure == null;
    }

    /** One line: the seed, the fault settings and what happened. */
    public String summary() {
        return (ok() ? "ok     " : "FAILED ") + settings.describe() + " | requests " + fates + ", gsns " + gsns
                + ", messages " + messages + ", crashes " + crashes + ", " + events + " events, " + simulatedMillis
                + "ms simulated";
    }

    /** How to replay a seed with its full event trace (from the repository root). */
    static String replayCommand(long seed) {
        return "mvn -q -B -f gyro-sim/pom.xml compile exec:java -Dexec.args=\"--seed " + seed + " --trace\""
                + "   (or: mvn -B -f gyro-sim/pom.xml test -Dtest=SimulatorSeedsTest -Dgyro.sim.seed=" + seed + ")";
    }
}
