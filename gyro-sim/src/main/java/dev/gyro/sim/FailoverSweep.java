package dev.gyro.sim;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * A leader change at every step of a round (docs/decisions/24-ring-on-groups.md). A seed runs on replicated groups
 * without random failovers, listing the steps of one instance ({@link SimNode.Step}); a round of that instance is
 * picked (from the step before the token arrives to the step before it arrives again, the round with the most kinds of
 * step); then the seed runs again once per step k of the round, with one failover right after step k. Up to step k each
 * run is the first one exactly (the same seed, the same draws), so the failover lands at that step and no other. Where
 * the step left an entry in the group's log, the sweep runs it three times: the entry turns out committed (UNKNOWN to
 * the old leader, which never acted on it); not committed; committed, and the new leader fails over as well, right
 * after it recovered its belt and did what that asked for at once. Every run must pass every checker.
 */
final class FailoverSweep {

    /** Longest stretch of steps swept for one round. */
    static final int MAX_ROUND_STEPS = 150;

    /**
     * What one sweep did.
     *
     * @param from, to  the steps swept, from..to
     * @param covered   where the failovers landed: each step's kind, and for one with an entry in the log, whether the
     *                  entry turned out "committed" or "not committed"
     * @param failures  the runs that failed
     */
    record Report(SimSettings settings, int node, long from, long to, int runs, Set<String> covered,
                  List<SimResult> failures) {
        String describe() {
            StringBuilder s = new StringBuilder(settings.describe()).append("\nsweep of instance ").append(node)
                    .append(", one failover after each of its steps ").append(from).append("..").append(to).append(": ")
                    .append(runs).append(" runs, ").append(failures.size()).append(" failed\ncovered: ")
                    .append(covered);
            for (SimResult r : failures)
                s.append("\n  FAILED ").append(r.failure()).append("\n  replay: ").append(r.replayCommand());
            return s.toString();
        }
    }

    private FailoverSweep() {}

    static Report sweep(long seed, int node) {
        return sweep(seed, node, Simulator.FailoverMode.CORRECT);
    }

    /** The sweep of a round of {@code node} in {@code seed}, with failovers settled as {@code mode} says. */
    static Report sweep(long seed, int node, Simulator.FailoverMode mode) {
        SimResult first = Simulator.run(seed, Simulator.Options.sweep(false, null, node));
        if (!first.ok()) return new Report(first.settings(), node, 0, 0, 1, Set.of(), List.of(first));
        long[] round = round(first.steps(), first.settings().instances());
        Set<String> covered = new TreeSet<>();
        List<SimResult> failures = new ArrayList<>();
        int runs = 0;
        for (long k = round[0]; k <= round[1]; k++) {
            SimNode.Step at = first.steps().get((int) k - 1);
            boolean inLog = at.name().endsWith("_IN_LOG");
            List<Simulator.Injection> injections = new ArrayList<>();
            if (inLog) {
                injections.add(new Simulator.Injection(node, k, true));
                injections.add(new Simulator.Injection(node, k, false));
                injections.add(new Simulator.Injection(node, k, true, true)); // and the new leader's at once
            } else {
                injections.add(new Simulator.Injection(node, k, null));
            }
            for (Simulator.Injection inject : injections) {
                SimResult r = Simulator.run(seed, Simulator.Options.sweep(false, inject, -1).with(mode));
                runs++;
                if (!r.ok()) failures.add(r);
                SimResult.Failover hit = r.failovers().isEmpty() ? null : r.failovers().get(0);
                if (hit == null || hit.step() != k || hit.at() != at)
                    throw new IllegalStateException("seed " + seed + ": the failover injected after step " + k
                            + " of instance " + node + " (" + at + ") landed at " + hit + ": the run is not the same");
                covered.add(at + (inject.commits() == null ? "" : inject.commits() ? " committed" : " not committed"));
                if (inject.twice() && r.failovers().size() > 1) {
                    SimResult.Failover again = r.failovers().get(1);
                    covered.add(again.at() + (again.settled().isEmpty() ? "" : inject.commits() ? " committed"
                            : " not committed") + (again.at() == SimNode.Step.STARTED ? "" : " (just started)"));
                }
            }
        }
        return new Report(first.settings(), node, round[0], round[1], runs, covered, failures);
    }

    /**
     * The steps (1-based, inclusive) of the round with the most kinds of step: from the step before the token arrives
     * to the step before it arrives again. A ring of one passes the token to itself: its round begins where it applies
     * it. Only steps of the safety phase are listed, and a round must end within them.
     */
    static long[] round(List<SimNode.Step> steps, int ringSize) {
        List<Integer> starts = new ArrayList<>(); // 0-based indexes of a round's first step
        for (int i = 1; i < steps.size(); i++) {
            SimNode.Step s = steps.get(i), before = steps.get(i - 1);
            boolean arrives = ringSize > 1 ? s == SimNode.Step.TOKEN_RECEIVED
                    : (s == SimNode.Step.APPLY_IN_LOG || s == SimNode.Step.APPLY_RETRY)
                    && before != SimNode.Step.APPLY_IN_LOG && before != SimNode.Step.APPLY_RETRY;
            if (arrives) starts.add(i);
        }
        long[] best = null;
        int bestKinds = -1;
        for (int r = 0; r + 1 < starts.size(); r++) {
            int from = starts.get(r) - 1, to = Math.min(starts.get(r + 1) - 1, from + MAX_ROUND_STEPS - 1);
            Set<SimNode.Step> kinds = EnumSet.noneOf(SimNode.Step.class);
            kinds.addAll(steps.subList(from, to + 1));
            if (kinds.size() > bestKinds) {
                bestKinds = kinds.size();
                best = new long[] {from + 1, to + 1};
            }
        }
        if (best == null)
            throw new IllegalArgumentException("no complete round in " + steps.size() + " steps: " + steps);
        return best;
    }
}
