package dev.gyro.sim;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The simulator's swarm: thousands of seeds, each its own mix of faults, each checked for safety and liveness. A
 * quarter of them run on replicated groups whose leaders fail over at random steps
 * (docs/decisions/24-ring-on-groups.md). The seeds are fixed, so CI is reproducible; widen the search with
 * {@code -Dgyro.sim.from=S -Dgyro.sim.seeds=C}; replay one seed, with its full event trace in
 * {@code target/surefire-reports}, with {@code -Dgyro.sim.seed=N}; one run of a failover sweep with
 * {@code -Dgyro.sim.seed=N -Dgyro.sim.failoverAt=I:K[:commit|:drop|:seed[:twice]]}, or the seed on replicated groups
 * without random failovers with {@code -Dgyro.sim.groups=true} (as {@code Simulator --failover-at}, {@code --groups}).
 */
class SimulatorSeedsTest {

    private static final int MAX_FAILURES = 10;

    private static Simulator.Options options(boolean replay) {
        String failoverAt = System.getProperty("gyro.sim.failoverAt");
        if (replay && failoverAt != null)
            return Simulator.Options.sweep(true, Simulator.Injection.parse(failoverAt), -1);
        if (replay && Boolean.getBoolean("gyro.sim.groups")) return Simulator.Options.sweep(true, null, -1);
        return Simulator.Options.of(replay, SimDatabase::new);
    }

    @Test
    void everySeedIsSafeAndConverges() throws Exception {
        Long replay = Long.getLong("gyro.sim.seed");
        long from = replay != null ? replay : Long.getLong("gyro.sim.from", 1);
        int count = replay != null ? 1 : Integer.getInteger("gyro.sim.seeds", 5000);
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
            long gsns = 0, crashes = 0, failovers = 0, replicated = 0;
            for (Future<SimResult> run : runs) {
                SimResult r = run.get();
                r.trace().forEach(System.out::println);
                System.out.println(r.summary());
                gsns += r.gsns();
                crashes += r.crashes();
                failovers += r.failovers().size();
                if (r.settings().replicated()) replicated++;
                if (!r.ok()) failed.add(r);
                if (failed.size() >= MAX_FAILURES) break; // badly broken: report these, do not wait for the rest
            }
            System.out.printf("%d seeds (%d..%d): %d failed, %d gsns, %d crashes, %d on replicated groups with %d"
                            + " failovers, %.1f s%n", count, from, from + count - 1, failed.size(), gsns, crashes,
                    replicated, failovers, (System.nanoTime() - started) / 1e9);
            if (!failed.isEmpty()) {
                StringBuilder why = new StringBuilder(failed.size() + (failed.size() >= MAX_FAILURES ? "+" : "")
                        + " of " + count + " seeds failed:\n");
                for (SimResult r : failed) {
                    why.append(r.summary()).append("\n  ").append(r.failure()).append("\n  replay: ")
                            .append(r.replayCommand()).append('\n');
                }
                fail(why.toString());
            }
            if (count >= 1000 && failed.isEmpty() && (replicated < count / 8 || failovers < replicated))
                fail(replicated + " of " + count + " seeds on replicated groups, " + failovers + " failovers: the"
                        + " failover fault is not running");
        } finally {
            pool.shutdownNow();
        }
    }
}
