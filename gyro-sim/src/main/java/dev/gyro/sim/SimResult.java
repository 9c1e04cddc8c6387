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
 * @param failovers        every failover of a replicated group, in order
 * @param steps            the steps of the instance the run was asked to list ({@link Simulator.Options#stepsOf()}):
 *                         where each left it, step k at index k - 1
 * @param injection        the failover injected at a chosen step, or null
 * @param replayArgs       the command line that replays the run, or null for a test's deliberately broken runtime
 * @param joins            members that joined the ring (docs/decisions/44-ring-changes.md): changes committed
 * @param leaves           members taken out of the ring: changes committed
 * @param ringChanges      every ring change committed, in gsn order
 */
public record SimResult(SimSettings settings, String failure, Map<HistoryChecker.Fate, Integer> fates, long gsns,
                        long messages, long crashes, long events, long simulatedMillis, List<String> trace,
                        List<Failover> failovers, List<SimNode.Step> steps, Simulator.Injection injection,
                        String replayArgs, long joins, long leaves, List<RingChange> ringChanges) {

    /**
     * A ring change (docs/decisions/44-ring-changes.md) committed as gsn {@code gsn} by instance {@code node} in its step
     * {@code step} (the step under way when its transaction committed), in the safety phase or not.
     */
    public record RingChange(int node, long step, long gsn, boolean safetyPhase) {}

    /**
     * One failover (docs/decisions/24-ring-on-groups.md): of instance {@code node}'s group, right after its step
     * {@code step}, which left it at {@code at}; {@code settled} says, for each entry that was in the group's log,
     * which duty it recorded and whether it turned out committed.
     */
    public record Failover(int node, long step, SimNode.Step at, List<String> settled) {}

    public boolean ok() {
        return failure == null;
    }

    /** One line: the seed, the fault settings and what happened. */
    public String summary() {
        return (ok() ? "ok     " : "FAILED ") + settings.describe()
                + (injection == null ? "" : " | one failover at " + injection.describe())
                + " | requests " + fates + ", gsns " + gsns
                + ", messages " + messages + ", crashes " + crashes
                + (settings.replicated() ? ", failovers " + failovers.size() : "")
                + (settings.ringChanges() ? ", joins " + joins + ", leaves " + leaves : "") + ", " + events + " events, "
                + simulatedMillis + "ms simulated";
    }

    /** How to replay this run with its full event trace (from the repository root). */
    public String replayCommand() {
        if (replayArgs == null) return "rerun the test: its runtime is deliberately broken (seed " + settings.seed() + ")";
        return "mvn -q -B -f gyro-sim/pom.xml compile exec:java -Dexec.args=\"" + replayArgs + " --trace\""
                + "   (or: mvn -B -f gyro-sim/pom.xml test -Dtest="
                + (replayArgs.contains("--rings") ? "RingChangeSeedsTest" : "SimulatorSeedsTest") + " -Dgyro.sim.seed="
                + settings.seed()
                + (injection != null ? " -Dgyro.sim.failoverAt=" + injection.describe()
                : replayArgs.contains("--groups") ? " -Dgyro.sim.groups=true" : "") + ")";
    }
}
