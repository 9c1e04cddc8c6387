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
 *
 * <p>{@link #sweepRingChange} sweeps the round in which a ring change is made (docs/decisions/44-ring-changes.md) the
 * same way: one failover of the change's maker at every step of it, before, while and after the change commits.
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
        return sweepSteps(seed, first, node, round, inject -> Simulator.Options.sweep(false, inject, -1).with(mode));
    }

    /**
     * The sweep of the round of {@code seed}, with ring changes, in which its first ring change of the safety phase is
     * made: one failover of its maker at every step from the step before the token arrived there to the step before it
     * arrives again. A report of no runs if the seed makes no change.
     */
    static Report sweepRingChange(long seed) {
        SimResult probe = Simulator.run(seed, Simulator.Options.sweep(false, null, -1).withRings());
        if (!probe.ok()) return new Report(probe.settings(), -1, 0, 0, 1, Set.of(), List.of(probe));
        SimResult.RingChange change = probe.ringChanges().stream().filter(SimResult.RingChange::safetyPhase)
                .findFirst().orElse(null);
        if (change == null) return new Report(probe.settings(), -1, 0, 0, 0, Set.of(), List.of());
        int node = change.node();
        SimResult first = Simulator.run(seed, Simulator.Options.sweep(false, null, node).withRings());
        List<SimNode.Step> steps = first.steps();
        int at = (int) Math.min(change.step(), steps.size()) - 1; // 0-based
        int arrived = at;
        while (arrived > 0 && steps.get(arrived) != SimNode.Step.TOKEN_RECEIVED) arrived--;
        int next = at + 1;
        while (next < steps.size() && steps.get(next) != SimNode.Step.TOKEN_RECEIVED) next++;
        long from = Math.max(1, arrived), to = Math.min(Math.min(next, steps.size()), from + MAX_ROUND_STEPS - 1);
        return sweepSteps(seed, first, node, new long[] {from, to},
                inject -> Simulator.Options.sweep(false, inject, -1).withRings());
    }

    /** One failover of {@code node} after each step of {@code round} of {@code first}, a run of {@code seed}. */
    private static Report sweepSteps(long seed, SimResult first, int node, long[] round,
                                     java.util.function.Function<Simulator.Injection, Simulator.Options> options) {
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
                SimResult r = Simulator.run(seed, options.apply(inject));
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
