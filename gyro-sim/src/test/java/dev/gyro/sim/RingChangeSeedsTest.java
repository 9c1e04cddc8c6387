package dev.gyro.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The swarm with ring changes (docs/decisions/44-ring-changes.md): every seed starts with one to three spare ids outside
 * the ring and, among all its other faults, asks for joins and leaves at random moments, so at any step of a round;
 * each run is checked for safety (every instance switches ring at the same gsn, only members make gsns, a joiner starts
 * on a database that holds its join) and liveness (the final ring's members converge, joiners included). The seeds are
 * fixed; widen the search with {@code -Dgyro.sim.from=S -Dgyro.sim.seeds=C}; replay one seed, with its full event trace
 * in {@code target/surefire-reports}, with {@code -Dgyro.sim.seed=N} (as {@code Simulator --seed N --rings}); a run of
 * {@link RingChangeSweepTest}'s with {@code -Dgyro.sim.seed=N -Dgyro.sim.failoverAt=I:K[:commit|:drop|:seed[:twice]]}.
 */
class RingChangeSeedsTest {

    private static final int MAX_FAILURES = 10;

    private static Simulator.Options options(boolean replay) {
        String failoverAt = System.getProperty("gyro.sim.failoverAt");
        if (replay && failoverAt != null)
            return Simulator.Options.sweep(true, Simulator.Injection.parse(failoverAt), -1).withRings();
        if (replay && Boolean.getBoolean("gyro.sim.groups")) return Simulator.Options.sweep(true, null, -1).withRings();
        return Simulator.Options.of(replay, SimDatabase::new).withRings();
    }

    @Test
    void everySeedWithRingChangesIsSafeAndConverges() throws Exception {
        Long replay = Long.getLong("gyro.sim.seed");
        long from = replay != null ? replay : Long.getLong("gyro.sim.from", 1);
        int count = replay != null ? 1 : Integer.getInteger("gyro.sim.seeds", 1000);
        int threads = Math.max(1, Math.min(2, Runtime.getRuntime().availableProcessors()));
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        long started = System.nanoTime();
        List<Future<SimResult>> runs = new ArrayList<>();
        try {
            for (long seed = from; seed < from + count; seed++) {
                long s = seed;
                runs.add(pool.submit(() -> Simulator.run(s, options(replay != null))));
            }
            List<SimResult> failed = new ArrayList<>();
            long gsns = 0, crashes = 0, joins = 0, leaves = 0, withBoth = 0;
            for (Future<SimResult> run : runs) {
                SimResult r = run.get();
                r.trace().forEach(System.out::println);
                System.out.println(r.summary());
                gsns += r.gsns();
                crashes += r.crashes();
                joins += r.joins();
                leaves += r.leaves();
                if (r.joins() > 0 && r.leaves() > 0) withBoth++;
                if (!r.ok()) failed.add(r);
                if (failed.size() >= MAX_FAILURES) break; // badly broken: report these, do not wait for the rest
            }
            System.out.printf("%d seeds with ring changes (%d..%d): %d failed, %d gsns, %d crashes, %d joins, %d leaves,"
                    + " %d seeds with both, %.1f s%n", count, from, from + count - 1, failed.size(), gsns, crashes, joins,
                    leaves, withBoth, (System.nanoTime() - started) / 1e9);
            if (!failed.isEmpty()) {
                StringBuilder why = new StringBuilder(failed.size() + (failed.size() >= MAX_FAILURES ? "+" : "")
                        + " of " + count + " seeds failed:\n");
                for (SimResult r : failed) {
                    why.append(r.summary()).append("\n  ").append(r.failure()).append("\n  replay: ")
                            .append(r.replayCommand()).append('\n');
                }
                fail(why.toString());
            }
            if (count >= 100) {
                assertThat(joins).as("joins committed").isGreaterThan(count / 2);
                assertThat(leaves).as("leaves committed").isGreaterThan(count / 4);
                assertThat(withBoth).as("seeds with a join and a leave").isGreaterThan(count / 10);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
