package dev.gyro.sim;

import java.util.Locale;
import java.util.Random;
import java.util.SplittableRandom;

/**
 * Every knob of one simulated run, drawn from its seed (swarm testing: each seed picks its own mix of extremes,
 * so some runs lose a fifth of all messages, some crash an instance every few hundred milliseconds, some have
 * a queue of two). Printed with every run, so that a failure can be understood before it is replayed.
 *
 * @param seed                  the seed of the run's one random source
 * @param instances             ring size
 * @param keys                  rows in the replicated table: fewer keys, more conflicts between global requests
 * @param minDelayMillis        fastest message delivery
 * @param maxDelayMillis        slowest message delivery (different delays reorder messages)
 * @param lossRate              chance that a message is lost (safety phase only)
 * @param duplicateRate         chance that a message is delivered twice (safety phase only)
 * @param meanPartitionMillis   mean time between network partitions that cut one instance off, 0 for none
 *                              (safety phase only)
 * @param maxPartitionMillis    longest partition
 * @param meanCrashMillis       mean time between crashes, 0 for none (safety phase only)
 * @param maxDowntimeMillis     longest time a crashed instance stays down
 * @param failRate              chance that executing a global request fails (rolls back)
 * @param meanRequestMillis     mean time between two global requests from the clients
 * @param queueBound            the Conveyor Belt's bound on queued global requests
 * @param tokenResendMillis     the Conveyor Belt's token resend interval
 * @param wantResendMillis      the Conveyor Belt's WANT resend interval
 * @param maxDbMillis           longest time one DBMS transaction (apply or execute) takes
 * @param applyRetryRate        chance that applying a token's updates fails (a serialization failure, say) and the
 *                              runtime retries it
 * @param safetyMillis          length of the safety phase (faults and clients on)
 * @param parallelGlobals       each round's snapshot of global requests runs concurrently, gsns taken in commit
 *                              order (paper Appendix B), instead of one at a time
 * @param snapshotIsolation     with parallel globals: the DBMS serializes by snapshots and lets a transaction serialized
 *                              first commit last (PostgreSQL's SSI), and the runtime orders commits itself
 *                              (docs/decisions/20-postgres-ordered-commits.md, {@code OrderedCommits}); otherwise the
 *                              DBMS has commit ordering
 * @param replicated            each ring position is a replicated group (docs/decisions/24-ring-on-groups.md): every
 *                              DBMS transaction of its instance commits only once the group's log committed its entry,
 *                              and the group's leader changes now and then (a failover; safety phase only)
 * @param maxLogMillis          replicated: longest time an entry takes to commit in the group's log
 * @param meanFailoverMillis    replicated: mean time between failovers, 0 for none
 * @param maxElectionMillis     replicated: longest time from a failover to the new leader's instance starting
 * @param unknownCommitRate     replicated: chance that an entry in flight at a failover (its outcome UNKNOWN to the
 *                              old leader) turns out committed in the group's log
 * @param maxDeposedMillis      replicated: longest time a deposed leader's instance runs on before it notices (it
 *                              can still send messages, but commit nothing); 0 for none
 * @param updatesAhead          the holder sends each update it commits to every other instance at once, which
 *                              applies it ahead of the token (docs/decisions/25-updates-ahead.md)
 * @param trimToken             with updates ahead: instances say what they applied ahead, and a holder leaves off the
 *                              token the updates all others applied (docs/decisions/26-trimmed-token.md)
 * @param spares                ring changes (docs/decisions/44-ring-changes.md): ids beyond the first ring's
 *                              {@code instances} members that may join it; 0 for a run without ring changes
 * @param meanRingChangeMillis  ring changes: mean time between two membership changes asked for (a join or a leave,
 *                              safety phase only), 0 for none
 * @param stopRemovedAtCommit   ring changes: a member taken out stops right after the change commits, rather than once
 *                              its own database applied it
 */
public record SimSettings(long seed, int instances, int keys, long minDelayMillis, long maxDelayMillis, double lossRate,
                          double duplicateRate, long meanPartitionMillis, long maxPartitionMillis, long meanCrashMillis, long maxDowntimeMillis, double failRate,
                          long meanRequestMillis, int queueBound, long tokenResendMillis, long wantResendMillis,
                          long maxDbMillis, double applyRetryRate, long safetyMillis, boolean parallelGlobals,
                          boolean snapshotIsolation, boolean replicated, long maxLogMillis, long meanFailoverMillis,
                          long maxElectionMillis, double unknownCommitRate, long maxDeposedMillis,
                          boolean updatesAhead, boolean trimToken, int spares, long meanRingChangeMillis,
                          boolean stopRemovedAtCommit) {

    /**
     * The replicated groups' knobs come from a second random stream of the same seed, so that they leave the run's
     * own stream alone: a seed that draws no replicated groups (three in four) runs exactly as it did before they
     * existed.
     */
    private static final long GROUPS_STREAM = 0x9E3779B97F4A7C15L;

    /** Updates sent ahead of the token: drawn from a third stream of the seed, for the same reason. */
    private static final long AHEAD_STREAM = 0xC2B2AE3D27D4EB4FL;

    /** Ring changes: drawn from a fourth stream of the seed, and only for runs that ask for them. */
    private static final long RING_STREAM = 0x165667B19E3779F9L;

    /** The settings seed {@code seed} runs with (as {@link Simulator#run(long)} draws them). */
    static SimSettings of(long seed) {
        return draw(seed, new Random(seed));
    }

    /** Draws the settings of a run; consumes the first numbers of the run's random source. */
    static SimSettings draw(long seed, Random random) {
        int instances = pick(random, 1, 2, 3, 3, 3, 4, 5);
        int keys = 2 + random.nextInt(12);
        long minDelay = 1 + random.nextInt(5);
        long maxDelay = minDelay + pick(random, 0, 5, 20, 60);
        double loss = pick(random, 0.0, 0.01, 0.05, 0.2);
        double dup = pick(random, 0.0, 0.02, 0.1, 0.3);
        long partition = pick(random, 0L, 0L, 500L, 2000L);
        long partitionLength = 1 + random.nextInt(1500);
        long crash = pick(random, 0L, 300L, 1000L, 3000L);
        long downtime = 1 + random.nextInt(500);
        double fail = pick(random, 0.0, 0.05, 0.3);
        long request = pick(random, 2L, 10L, 40L, 150L);
        int queue = pick(random, 2, 5, 10_000);
        long tokenResend = pick(random, 30L, 100L, 500L);
        long wantResend = pick(random, 20L, 100L, 300L);
        long db = 1 + random.nextInt(15);
        double retry = pick(random, 0.0, 0.0, 0.1);
        long safety = pick(random, 1_000L, 2_000L, 4_000L);
        boolean parallel = random.nextBoolean(); // drawn late: the knobs above stay what they were for every seed
        boolean snapshots = parallel && random.nextBoolean();
        // Scrambled first: java.util.Random's first numbers hardly differ between neighbouring seeds.
        Random groups = new Random(new SplittableRandom(seed ^ GROUPS_STREAM).nextLong());
        boolean replicated = groups.nextInt(4) == 0;
        long log = 1 + groups.nextInt(10);
        long failover = pick(groups, 100L, 300L, 1000L);
        long election = pick(groups, 0L, 5L, 50L, 300L);
        double unknown = pick(groups, 0.1, 0.5, 0.9);
        long deposed = pick(groups, 0L, 0L, 20L, 200L);
        SplittableRandom aheadStream = new SplittableRandom(seed ^ AHEAD_STREAM);
        boolean ahead = aheadStream.nextBoolean();
        boolean trim = ahead && aheadStream.nextBoolean(); // drawn after: each seed sends ahead as it did before
        return new SimSettings(seed, instances, keys, minDelay, maxDelay, loss, dup, partition, partitionLength, crash,
                downtime, fail, request, queue, tokenResend, wantResend, db, retry, safety, parallel, snapshots,
                replicated, log, failover, election, unknown, deposed, ahead, trim, 0, 0, false);
    }

    /**
     * The same run with ring changes (docs/decisions/44-ring-changes.md): one to three spare ids that may join, and joins
     * and leaves asked for now and then, drawn from a stream of their own.
     */
    SimSettings withRingChanges() {
        SplittableRandom ring = new SplittableRandom(seed ^ RING_STREAM);
        int spare = 1 + ring.nextInt(3);
        long change = new long[] {50L, 150L, 400L}[ring.nextInt(3)];
        return new SimSettings(seed, instances, keys, minDelayMillis, maxDelayMillis, lossRate, duplicateRate,
                meanPartitionMillis, maxPartitionMillis, meanCrashMillis, maxDowntimeMillis, failRate, meanRequestMillis,
                queueBound, tokenResendMillis, wantResendMillis, maxDbMillis, applyRetryRate, safetyMillis,
                parallelGlobals, snapshotIsolation, replicated, maxLogMillis, meanFailoverMillis, maxElectionMillis,
                unknownCommitRate, maxDeposedMillis, updatesAhead, trimToken, spare, change, ring.nextBoolean());
    }

    /** Whether membership changes run (decision 44). */
    boolean ringChanges() {
        return meanRingChangeMillis > 0;
    }

    /** Every instance id the run may use: the first ring's members and the spares. */
    int ids() {
        return instances + spares;
    }

    /**
     * The same run on replicated groups, without random failovers: for a sweep that injects one failover at a chosen
     * step ({@link FailoverSweep}).
     */
    SimSettings forSweep() {
        return new SimSettings(seed, instances, keys, minDelayMillis, maxDelayMillis, lossRate, duplicateRate,
                meanPartitionMillis, maxPartitionMillis, meanCrashMillis, maxDowntimeMillis, failRate, meanRequestMillis,
                queueBound, tokenResendMillis, wantResendMillis, maxDbMillis, applyRetryRate, safetyMillis,
                parallelGlobals, snapshotIsolation, true, maxLogMillis, 0, maxElectionMillis, unknownCommitRate,
                maxDeposedMillis, updatesAhead, trimToken, spares, meanRingChangeMillis, stopRemovedAtCommit);
    }

    /** One line: the seed and every fault setting. */
    public String describe() {
        return describeSingle() + (!replicated ? "" : String.format(Locale.ROOT,
                ", replicated groups: log <=%dms, failover %s, election <=%dms, unknown committed %.0f%%, deposed "
                        + "leader runs on %s", maxLogMillis,
                meanFailoverMillis == 0 ? "never" : "every ~" + meanFailoverMillis + "ms", maxElectionMillis,
                unknownCommitRate * 100, maxDeposedMillis == 0 ? "never" : "<=" + maxDeposedMillis + "ms"));
    }

    private String describeSingle() {
        return String.format(Locale.ROOT,
                "seed %d: ring %d, %d keys, delay %d..%dms, loss %.0f%%, dup %.0f%%, partition %s, crash %s, "
                        + "downtime <=%dms, exec-fail %.0f%%, request every ~%dms, queue %d, resend token %dms want %dms, "
                        + "db <=%dms, apply-retry %.0f%%, safety %dms, globals %s",
                seed, instances, keys, minDelayMillis, maxDelayMillis, lossRate * 100, duplicateRate * 100,
                meanPartitionMillis == 0 ? "never" : "every ~" + meanPartitionMillis + "ms for <=" + maxPartitionMillis
                        + "ms",
                meanCrashMillis == 0 ? "never" : "every ~" + meanCrashMillis + "ms", maxDowntimeMillis,
                failRate * 100, meanRequestMillis, queueBound, tokenResendMillis, wantResendMillis, maxDbMillis,
                applyRetryRate * 100, safetyMillis, !parallelGlobals ? "one at a time"
                        : snapshotIsolation ? "in parallel, commits ordered on snapshots" : "in parallel")
                + (updatesAhead ? ", updates sent ahead of the token" : "")
                + (trimToken ? ", the token trimmed of what all applied" : "")
                + (!ringChanges() ? "" : ", ring changes every ~" + meanRingChangeMillis + "ms with " + spares
                + " spare id" + (spares == 1 ? "" : "s") + ", a removed member stops "
                + (stopRemovedAtCommit ? "at the commit" : "once it applied its removal"));
    }

    @SafeVarargs
    private static <T> T pick(Random random, T... choices) {
        return choices[random.nextInt(choices.length)];
    }
}
