package dev.gyro.sim;

import dev.gyro.protocol.Action;
import dev.gyro.protocol.Codec;
import dev.gyro.protocol.ConveyorBeltConfig;
import dev.gyro.protocol.DurableState;
import dev.gyro.protocol.Message;
import dev.gyro.protocol.Ring;
import dev.gyro.protocol.StateUpdate;
import dev.gyro.protocol.Token;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * A deterministic simulator of a Conveyor Belt ring (TigerBeetle's VOPR style). It runs N real
 * {@link dev.gyro.protocol.ConveyorBelt}s against a simulated network (random delay, reordering, duplication,
 * loss), simulated disks and DBMSs ({@link SimDatabase}), crashes and restarts, and clients that submit global
 * requests at random instances. One seeded {@link Random} decides everything and time is simulated, so a seed
 * replays a run exactly.
 *
 * <p>A run has two phases. The safety phase turns every fault on while clients submit requests; the
 * {@link HistoryChecker} checks every commit as it happens. The liveness phase then turns faults off, heals the
 * network, restarts every instance and stops the clients, runs until the ring is quiet, and checks that it
 * converged: every accepted request that was not lost in a crash completed exactly once, every instance
 * applied the same gsns and holds the same table, and the idle ring sends no more messages.
 *
 * <p>In a quarter of the seeds each ring position is a replicated group (docs/decisions/24-ring-on-groups.md): every
 * DBMS transaction commits through the group's log, and failovers ({@link #failover}) change the group's leader at
 * random moments, so at any step of a round. {@link FailoverSweep} injects one failover at every step of a round
 * instead.
 *
 * <p>With ring changes ({@link Options#rings()}, docs/decisions/44-ring-changes.md) the run starts with spare ids
 * outside the ring, and during the safety phase asks at random moments, so at any step of a round, for joins of spares
 * and leaves of members: global requests whose updates carry the new ring ({@link SimNode}). A joiner starts on a copy
 * of a member's database that holds the join's gsn; a member taken out stops. Crashes, restarts and every other fault go
 * on meanwhile, joiners included; the checkers check that every instance switches ring at the same gsn, and the
 * liveness phase that the final ring's members converge.
 *
 * <p>Usage: {@code Simulator [--seed N [--trace] [--groups] [--failover-at I:K[:commit|:drop|:seed[:twice]]]
 * [--sweep I]] [--rings] [--from S] [--count C]}: one seed (with its event trace), or the seeds S .. S+C-1 (default 1 .. 1000).
 * {@code --groups} runs the seed on replicated groups without random failovers; {@code --failover-at} does too, with
 * exactly one failover, right after the K-th step of instance I (the entries then in the log committed, dropped, or as
 * the seed draws; {@code twice}: and its new leader's too, right after it starts); {@code --sweep I} runs the sweep of
 * a round of instance I ({@link FailoverSweep}); {@code --rings} runs with ring changes. Exits with 1 if any run failed.
 */
public final class Simulator {

    static final long TICK_MILLIS = 10;
    /** The liveness phase fails if the ring has not converged after this much simulated time. */
    static final long LIVENESS_LIMIT_MILLIS = 60_000;
    /** After converging, the idle ring is watched this long for any message. */
    static final long IDLE_WATCH_MILLIS = 5_000;
    /**
     * A run that needs more events than this is running away (a token that grows forever, a message storm); it
     * fails rather than let one seed stall the whole swarm. Healthy runs use some ten thousand at most.
     */
    static final long EVENT_BUDGET = 300_000;

    /**
     * How a failover settles the old leader's transactions whose entries were in the group's log. Only
     * {@link #CORRECT} is what a replicated group does (docs/decisions/24-ring-on-groups.md); the others are
     * deliberately broken, for the tests that prove the checkers catch them.
     */
    enum FailoverMode {
        /** An entry the log committed is in the next leader's database, from which its belt recovers. */
        CORRECT,
        /** Broken: the group committed the entry (a replica applied it) but the next leader's database lacks it. */
        LOSES_COMMITTED,
        /** Broken: the next leader recovers its belt before its database applied the committed entry. */
        RECOVERS_BEFORE_LOG
    }

    /**
     * Which of the belt store's two retry guards the simulated store keeps (docs/decisions/05-exactly-once.md): a retry
     * after a commit whose answer was lost does nothing if the first attempt committed ({@link Action.ApplyUpdates#committedIn},
     * {@link Action.ApplyAhead#committedIn}, which the runtime's store asks too). Only {@link #BOTH} is correct; the
     * others leave one out, for the tests that prove a seed catches the bug it prevents.
     */
    enum Guards {
        BOTH,
        /** Broken: a retried apply of a token's updates applies them again, though the first attempt committed. */
        WITHOUT_RECEIVED_ALREADY,
        /** Broken: a retried apply of updates sent ahead applies them again, though the first attempt committed. */
        WITHOUT_APPLIED_AHEAD_ALREADY
    }

    /**
     * One failover injected right after the {@code step}-th step of instance {@code node} (counted from the start,
     * {@link SimNode.Step}); {@code commits}: whether the entries then in the group's log turn out committed (null: as
     * the seed draws). {@code twice}: the new leader fails over too, right after its first step (it recovered its belt
     * and did what that asked for at once), settled alike.
     */
    record Injection(int node, long step, Boolean commits, boolean twice) {
        Injection(int node, long step, Boolean commits) {
            this(node, step, commits, false);
        }

        /** {@code I:K[:commit|:drop|:seed[:twice]]}, as {@link #describe} writes it. */
        static Injection parse(String spec) {
            String[] at = spec.split(":");
            return new Injection(Integer.parseInt(at[0]), Long.parseLong(at[1]), at.length < 3 ? null : switch (at[2]) {
                case "commit" -> Boolean.TRUE;
                case "drop" -> Boolean.FALSE;
                case "seed" -> null;
                default -> throw new IllegalArgumentException("commit, drop or seed, not " + at[2] + " in " + spec);
            }, at.length > 3 && at[3].equals("twice"));
        }

        String describe() {
            return node + ":" + step + (commits == null ? ":seed" : commits ? ":commit" : ":drop") + (twice ? ":twice" : "");
        }

        boolean at(int instance, long k) {
            return instance == node && (k == step || (twice && k == step + 1));
        }
    }

    /**
     * How a run is set up beyond its seed.
     *
     * @param sweep   on replicated groups, without random failovers (only {@code inject})
     * @param inject  a failover at a chosen step, or null
     * @param stepsOf the instance whose steps the result lists ({@link SimResult#steps()}), or -1
     */
    record Options(boolean traced, SimDatabase.Factory databases, boolean sweep, Injection inject, FailoverMode mode,
                   int stepsOf, Guards guards, boolean rings, JoinCopy joinCopy) {
        static Options of(boolean traced, SimDatabase.Factory databases) {
            return new Options(traced, databases, false, null, FailoverMode.CORRECT, -1, Guards.BOTH, false,
                    JoinCopy.HOLDS_THE_JOIN);
        }

        /** On replicated groups, one failover at {@code inject} (none if null), listing the steps of {@code stepsOf}. */
        static Options sweep(boolean traced, Injection inject, int stepsOf) {
            return new Options(traced, SimDatabase::new, true, inject, FailoverMode.CORRECT, stepsOf, Guards.BOTH, false,
                    JoinCopy.HOLDS_THE_JOIN);
        }

        Options with(FailoverMode broken) {
            return new Options(traced, databases, sweep, inject, broken, stepsOf, guards, rings, joinCopy);
        }

        Options with(Guards broken) {
            return new Options(traced, databases, sweep, inject, mode, stepsOf, broken, rings, joinCopy);
        }

        /** With ring changes (docs/decisions/44-ring-changes.md). */
        Options withRings() {
            return new Options(traced, databases, sweep, inject, mode, stepsOf, guards, true, joinCopy);
        }

        Options with(JoinCopy copy) {
            return new Options(traced, databases, sweep, inject, mode, stepsOf, guards, rings, copy);
        }

        /** The command line that replays the run ({@link #main}), or null for a test's deliberately broken runtime. */
        String replayArgs(long seed, boolean correctDatabase) {
            if (mode != FailoverMode.CORRECT || guards != Guards.BOTH || joinCopy != JoinCopy.HOLDS_THE_JOIN
                    || !correctDatabase) return null;
            return "--seed " + seed + (inject != null ? " --failover-at " + inject.describe() : sweep ? " --groups" : "")
                    + (rings ? " --rings" : "");
        }
    }

    /**
     * When and how a joiner's database is copied (docs/decisions/44-ring-changes.md). Only {@link #HOLDS_THE_JOIN} is
     * correct; the others are deliberately broken, for the tests that prove the checkers catch them.
     */
    enum JoinCopy {
        /** From a member whose database applied the join's gsn: wait until one has. */
        HOLDS_THE_JOIN,
        /** Broken: from a member of the new ring, at once when the join commits, whether it applied the gsn or not. */
        AT_THE_COMMIT,
        /** Broken: as {@link #HOLDS_THE_JOIN}, but the copy leaves out Gyro's row of {@link Ring#TABLE}. */
        WITHOUT_THE_RING
    }

    /** A membership change asked for by global request: {@code who} joins the ring, or leaves it. */
    record RingChange(boolean join, int who) {
        @Override
        public String toString() {
            return (join ? "join of " : "leave of ") + who;
        }
    }

    /**
     * A joiner waits for a database to copy: of {@code source}, once it holds gsn {@code gsn}, or after {@code until} of
     * any instance's that does (a member the token reaches only through the joiner never will).
     */
    private record PendingJoin(int joiner, long gsn, int source, long until) {}

    private final SimSettings settings;
    private final Options options;
    private final boolean correctDatabase;
    private final Random random;
    private final EventQueue events = new EventQueue();

    private final SimNode[] nodes;
    private final HistoryChecker checker;
    private final Map<Long, GlobalRequest> requests = new HashMap<>();
    private final List<String> trace;

    private boolean faults = true;
    private boolean clients = true;
    private long nextRequestId = 1;
    private int inFlight;
    private long lastMessageAt;
    private long messages, crashes, steps;
    private final long[] isolatedUntil;
    private final List<SimResult.Failover> failovers = new ArrayList<>();
    private final List<SimNode.Step> stepLog = new ArrayList<>();

    // Ring changes (decision 44): what the simulator saw commit, in gsn order.
    private final SimDatabase.Factory databases;
    private final Map<Long, RingChange> ringChanges = new HashMap<>(); // by request id
    private Ring ring;
    private final Set<Integer> everMember = new HashSet<>();
    private final Set<Integer> departed = new HashSet<>(); // taken out of the ring: stopped for good, or soon
    private final Map<Integer, Long> stopOnceApplied = new HashMap<>(); // removed member -> the gsn of its removal
    private final List<PendingJoin> pendingJoins = new ArrayList<>();
    private long joins, leaves;
    private final List<SimResult.RingChange> changesCommitted = new ArrayList<>();
    private Simulator(long seed, Options options) {
        this.options = options;
        this.random = new Random(seed);
        SimSettings drawn = SimSettings.draw(seed, random);
        SimSettings forRun = options.sweep() ? drawn.forSweep() : drawn;
        this.settings = options.rings() ? forRun.withRingChanges() : forRun;
        this.databases = options.databases();
        this.trace = options.traced() ? new ArrayList<>() : null;
        int members = settings.instances();
        this.checker = new HistoryChecker(settings.ids(), members);
        this.nodes = new SimNode[settings.ids()];
        this.isolatedUntil = new long[settings.ids()];
        this.ring = Ring.initial(members);
        everMember.addAll(ring.members());
        boolean correct = true;
        for (int i = 0; i < nodes.length; i++) {
            // A spare's configuration names a first ring it was never in; it starts on a copied ring (decision 44).
            ConveyorBeltConfig config = new ConveyorBeltConfig(i, i < members ? members : i + 1, settings.queueBound(),
                    settings.tokenResendMillis(), settings.wantResendMillis(), settings.parallelGlobals(),
                    settings.updatesAhead(), settings.trimToken());
            SimDatabase db = null;
            if (i < members) {
                db = databases.create(i, DurableState.initial(i), checker);
                correct &= db.getClass() == SimDatabase.class;
            }
            nodes[i] = new SimNode(i, this, config, db);
        }
        this.correctDatabase = correct;
    }

    /** Runs one seed with the correct simulated DBMS. */
    public static SimResult run(long seed) {
        return run(seed, false, SimDatabase::new);
    }

    static SimResult run(long seed, boolean traced, SimDatabase.Factory databases) {
        return run(seed, Options.of(traced, databases));
    }

    static SimResult run(long seed, Options options) {
        Simulator sim = new Simulator(seed, options);
        String failure = null;
        try {
            sim.simulate();
        } catch (SimulationFailure e) {
            failure = "at " + sim.now() + "ms: " + e.getMessage();
        } catch (RuntimeException e) {
            // The protocol's own invariant checks (IllegalStateException) and anything unexpected: where it threw.
            StringBuilder where = new StringBuilder();
            StackTraceElement[] stack = e.getStackTrace();
            for (int i = 0; i < Math.min(6, stack.length); i++) where.append("\n      at ").append(stack[i]);
            failure = "at " + sim.now() + "ms: " + e + where;
        }
        return new SimResult(sim.settings, failure, sim.checker.fates(), sim.checker.canonicalLength(), sim.messages,
                sim.crashes, sim.steps, sim.now(), sim.trace == null ? List.of() : List.copyOf(sim.trace),
                List.copyOf(sim.failovers), List.copyOf(sim.stepLog), options.inject(),
                options.replayArgs(seed, sim.correctDatabase), sim.joins, sim.leaves, List.copyOf(sim.changesCommitted));
    }

    // ---------------------------------------------------------------- the two phases

    private void simulate() {
        for (SimNode n : nodes) if (n.db != null) n.start();
        if (settings.ringChanges()) after(interval(settings.meanRingChangeMillis()), this::ringChangeOne);
        after(TICK_MILLIS, this::tick);
        after(interval(settings.meanRequestMillis()), this::clientRequest);
        if (settings.meanCrashMillis() > 0) after(interval(settings.meanCrashMillis()), this::crashOne);
        if (settings.meanPartitionMillis() > 0) after(interval(settings.meanPartitionMillis()), this::partitionOne);
        if (settings.replicated() && settings.meanFailoverMillis() > 0)
            after(interval(settings.meanFailoverMillis()), this::failoverOne);
        runUntil(settings.safetyMillis(), () -> false);

        // Liveness: faults off, network healed, everybody up, no new requests; run until quiet.
        trace(() -> "liveness phase: faults off, clients stop");
        faults = false;
        clients = false;
        for (SimNode n : nodes) {
            n.endDeposed(-1); // a deposed leader steps down within the election timeout
            if (departed.contains(n.id)) { // taken out: it may just be stopped (decision 44)
                if (n.up() && stopOnceApplied.containsKey(n.id))
                    trace(() -> n.id + " was taken out of the ring at gsn " + stopOnceApplied.get(n.id) + " but its"
                            + " database is at gsn " + n.db.lastGsn() + ": it never heard");
                stopForGood(n);
            }
            else if (n.db != null && !n.up()) restart(n);
        }
        long deadline = now() + LIVENESS_LIMIT_MILLIS;
        long quietWindow = 2 * Math.max(settings.tokenResendMillis(), settings.wantResendMillis())
                + settings.maxDelayMillis() + 2 * TICK_MILLIS;
        runUntil(deadline, () -> quiet(quietWindow));
        if (!quiet(quietWindow)) {
            StringBuilder why = new StringBuilder("no convergence " + LIVENESS_LIMIT_MILLIS + "ms after faults stopped:");
            for (SimNode n : nodes)
                if (n.up())
                    why.append(" [").append(n.id).append(' ').append(n.belt().role()).append(" queued ")
                            .append(n.belt().queuedGlobals()).append(" last-gsn ").append(n.belt().lastGsn())
                            .append(']');
            if (!pendingJoins.isEmpty()) why.append(" joiners waiting for a database to copy: ").append(pendingJoins);
            throw new SimulationFailure(why.append(", ").append(inFlight).append(" messages in flight").toString());
        }
        long[] protocolGsn = new long[nodes.length];
        List<SimDatabase> dbs = new ArrayList<>();
        for (SimNode n : nodes) {
            if (!n.up()) continue; // a spare that never joined, or a member taken out
            protocolGsn[n.id] = n.belt().lastGsn();
            dbs.add(n.db);
        }
        checker.checkConverged(dbs, protocolGsn);

        long sent = messages;
        runUntil(now() + IDLE_WATCH_MILLIS, () -> false);
        if (messages != sent)
            throw new SimulationFailure("the idle ring sent " + (messages - sent) + " messages after converging");
    }

    private boolean quiet(long window) {
        if (inFlight > 0 || now() - lastMessageAt < window || !pendingJoins.isEmpty()) return false;
        for (SimNode n : nodes) if (n.db != null && !departed.contains(n.id) && !n.idle()) return false;
        return true;
    }

    private void runUntil(long until, BooleanSupplier done) {
        events.runUntil(until, done, count -> {
            steps = count;
            if (count > EVENT_BUDGET)
                throw new SimulationFailure("runaway: more than " + EVENT_BUDGET + " events (" + messages + " messages)");
        });
    }

    // ---------------------------------------------------------------- the world

    private void tick() {
        ringChangesProgress();
        for (SimNode n : nodes) {
            if (n.up()) n.tick(now());
            if (n.deposedRunning()) n.tickDeposed(now());
        }
        after(TICK_MILLIS, this::tick);
    }

    private void clientRequest() {
        if (!clients) return;
        int at = random.nextInt(nodes.length);
        long[] reads = keys(random.nextInt(4));
        long[] writes = keys(1 + random.nextInt(3));
        GlobalRequest r = new GlobalRequest(nextRequestId++, at, reads, writes);
        requests.put(r.id(), r);
        SimNode node = nodes[at];
        trace(() -> "client sends " + r);
        // The checker hears whether the belt took it, before its execution (which takes simulated time) completes; a
        // request its instance crashed before taking is one the client never had an answer to, as if lost on the way.
        if (node.up()) {
            node.submit(r.id());
        } else {
            checker.submitted(r, HistoryChecker.Fate.UNREACHABLE);
            trace(() -> "client: r" + r.id() + " UNREACHABLE");
        }
        after(interval(settings.meanRequestMillis()), this::clientRequest);
    }

    private long[] keys(int count) {
        long[] k = new long[count];
        for (int i = 0; i < count; i++) k[i] = random.nextInt(settings.keys());
        return k;
    }

    private void crashOne() {
        if (!faults) return;
        crash(nodes[random.nextInt(nodes.length)]);
        after(interval(settings.meanCrashMillis()), this::crashOne);
    }

    /** {@code n} crashes, if up, and restarts after a while unless it was taken out of the ring meanwhile. */
    private void crash(SimNode n) {
        if (n.up()) {
            crashes++;
            trace(() -> n.id + " CRASHES");
            n.endDeposed(-1);
            // A replicated group down as a whole: entries in its log may still commit when it is back (decision 24).
            n.stop(() -> chance(settings.unknownCommitRate()), options.mode(), false);
            checker.crashed(n.id);
            after(1 + nextLong(settings.maxDowntimeMillis()), () -> {
                if (!n.up() && !departed.contains(n.id)) restart(n);
            });
        }
    }

    /** Cuts one instance off the network for a while; its messages in both directions are lost. */
    private void partitionOne() {
        if (!faults) return;
        int n = random.nextInt(nodes.length);
        isolatedUntil[n] = Math.max(isolatedUntil[n], now() + 1 + nextLong(settings.maxPartitionMillis()));
        trace(() -> n + " is cut off until " + isolatedUntil[n]);
        after(interval(settings.meanPartitionMillis()), this::partitionOne);
    }

    /**
     * Replicated groups only (docs/decisions/24-ring-on-groups.md): the leader of a random group is deposed (killed, or
     * cut off from its group), at whatever step of a round its instance is.
     */
    private void failoverOne() {
        if (!faults) return;
        SimNode n = nodes[random.nextInt(nodes.length)];
        if (n.up()) failover(n, null);
        after(interval(settings.meanFailoverMillis()), this::failoverOne);
    }

    /**
     * A failover of {@code n}'s group (docs/decisions/24-ring-on-groups.md). The old leader's instance stops: its belt,
     * its queue and every action not yet performed are gone, and the clients of its queued requests get no reply. Each
     * transaction whose entry was in the group's log, its outcome UNKNOWN to the old leader, turns out committed or
     * not ({@code commits}, or the seed). Messages the old leader sent stay in the network. Unless the seed has no
     * deposed leaders, the old leader's belt runs on for a while without knowing (no leader lease, decisions 22, 24): it
     * still takes messages and sends, but its transactions never commit. After an election the new leader's instance
     * starts and recovers the belt from its database, which holds exactly what the group committed.
     */
    private void failover(SimNode n, Boolean commits) {
        long step = n.steps(); // the failover comes after this step; it is no step of its own
        SimNode.Step at = n.label();
        long runsOn = settings.maxDeposedMillis() == 0 ? 0 : nextLong(settings.maxDeposedMillis() + 1);
        long election = nextLong(settings.maxElectionMillis() + 1);
        trace(() -> n.id + " FAILS OVER after its step " + step + " (" + at + ": " + at.means + "): its group's leader"
                + " is deposed, a new one leads in " + election + "ms" + (runsOn > 0 ? "; the old one runs on for "
                + runsOn + "ms" : ""));
        List<String> settled = n.stop(() -> commits != null ? commits : chance(settings.unknownCommitRate()),
                options.mode(), runsOn > 0);
        checker.crashed(n.id); // after the log is settled: a request the log committed has completed
        failovers.add(new SimResult.Failover(n.id, step, at, settled));
        if (runsOn > 0) {
            int term = n.deposedTerm();
            after(runsOn, () -> n.endDeposed(term));
        }
        after(election, () -> {
            if (n.up() || departed.contains(n.id)) return;
            trace(() -> n.id + "'s group has a new leader");
            n.start();
        });
    }

    private void restart(SimNode n) {
        trace(() -> n.id + " restarts");
        n.start();
    }

    /**
     * A step of {@code n} ended ({@link SimNode.Step}): counted, listed if asked, traced on replicated groups, and the
     * injected failover happens here if it is this one.
     */
    void stepped(SimNode n) {
        long k = n.countStep();
        SimNode.Step label = n.label();
        if (n.id == options.stepsOf() && faults) stepLog.add(label); // injections land in the safety phase only
        if (settings.replicated()) trace(() -> n.id + " step " + k + ": " + label);
        Injection inject = options.inject();
        if (faults && inject != null && inject.at(n.id, k) && n.up()) failover(n, inject.commits());
        if (settings.ringChanges()) {
            if (n.up()) checker.holdsRing(n.id, "Conveyor Belt", n.belt().lastGsn(), n.belt().ring());
            if (n.db != null) checker.holdsRing(n.id, "database", n.db.lastGsn(), n.db.ring());
            ringChangesProgress();
        }
    }

    // ---------------------------------------------------------------- ring changes (decision 44)

    /**
     * Asks for one membership change, at a random moment (so at any step of a round): the join of a spare that was never
     * a member, or the leave of a member, as a global request to a member (not the one that leaves). The ring it is
     * judged against is the last one committed; the holder that runs it judges again by its own ({@link
     * #ringChangeFor}).
     */
    private void ringChangeOne() {
        if (!faults) return;
        List<Integer> fresh = new ArrayList<>();
        for (SimNode n : nodes) if (!everMember.contains(n.id)) fresh.add(n.id);
        boolean join = !fresh.isEmpty() && (ring.size() <= 2 || random.nextBoolean());
        RingChange change = null;
        int at = -1;
        if (join) {
            change = new RingChange(true, fresh.get(random.nextInt(fresh.size())));
            at = ring.members().get(random.nextInt(ring.size()));
        } else if (ring.size() > 2) {
            int leaves = ring.members().get(random.nextInt(ring.size()));
            List<Integer> others = new ArrayList<>(ring.members());
            others.remove(Integer.valueOf(leaves));
            change = new RingChange(false, leaves);
            at = others.get(random.nextInt(others.size()));
        }
        if (change != null) {
            GlobalRequest r = new GlobalRequest(nextRequestId++, at, new long[0], new long[0]);
            requests.put(r.id(), r);
            ringChanges.put(r.id(), change);
            RingChange asked = change;
            trace(() -> "operator asks " + r.instance() + " for the " + asked + " as r" + r.id());
            SimNode node = nodes[at];
            if (node.up()) {
                node.submit(r.id());
            } else {
                checker.submitted(r, HistoryChecker.Fate.UNREACHABLE);
                trace(() -> "operator: r" + r.id() + " UNREACHABLE");
            }
        }
        after(interval(settings.meanRingChangeMillis()), this::ringChangeOne);
    }

    /**
     * The token's holder {@code n} begins to run a membership change request: now and then it crashes (or, on replicated
     * groups, fails over) a moment later, before its transaction commits, or after it, before its report to the belt or
     * before the token leaves by the new ring, so that a crash in the middle of running a change is not left to chance
     * alone. The change must then be there in full (in the database and its outbox, and so on the token) or not at all.
     */
    void ringChangeRunning(SimNode n) {
        if (!faults || !chance(0.3)) return;
        long in = nextLong(3 * settings.maxDbMillis() + (settings.replicated() ? 2 * settings.maxLogMillis() : 0) + 4);
        trace(() -> n.id + " will fail " + in + "ms into running a ring change");
        after(in, () -> {
            if (!faults || !n.up()) return;
            // A sweep injects its one failover itself (FailoverSweep): then only crashes.
            if (settings.replicated() && settings.meanFailoverMillis() > 0 && chance(0.5)) failover(n, null);
            else crash(n);
        });
    }

    /** The membership change request {@code requestId} asks for, or null for an application's request. */
    RingChange ringChange(long requestId) {
        return ringChanges.get(requestId);
    }

    /**
     * The ring that membership change request {@code requestId} makes when instance {@code self} commits it while it
     * holds hop {@code hop} of {@code current}, or null when it can make none: a join of an instance that is or was a
     * member, a leave of a non-member, of itself, or one that would leave fewer than two members. A joiner goes right
     * after its maker, at the end, or anywhere, as the seed draws.
     */
    Ring ringChangeFor(long requestId, int self, Ring current, long hop) {
        RingChange c = ringChanges.get(requestId);
        if (c == null) return null;
        List<Integer> members = new ArrayList<>(current.members());
        if (c.join()) {
            if (current.contains(c.who()) || everMember.contains(c.who())) return null;
            double where = random.nextDouble();
            if (where < 0.4) members.add(members.indexOf(self) + 1, c.who());
            else if (where < 0.7) members.add(c.who());
            else members.add(random.nextInt(members.size() + 1), c.who());
        } else {
            if (!current.contains(c.who()) || c.who() == self || current.size() <= 2) return null;
            members.remove(Integer.valueOf(c.who()));
        }
        return current.next(members, hop, self);
    }

    /**
     * An update that changes the ring committed at its holder (it is in the holder's database, in its outbox): a
     * joiner's database is copied once a member holds the gsn, and a member taken out stops, at once or once it applied
     * the change, as the seed says.
     */
    void ringCommitted(StateUpdate update) {
        Ring next = update.ring();
        if (next.epoch() <= ring.epoch()) return; // a deliberately broken failover commits it twice
        Ring before = ring;
        ring = next;
        changesCommitted.add(new SimResult.RingChange(update.origin(), nodes[update.origin()].steps() + 1, update.gsn(),
                faults));
        trace(() -> update.origin() + " changed the ring at gsn " + update.gsn() + " to epoch " + next.epoch() + " "
                + next.members() + " from hop " + next.hop());
        for (int m : next.members()) {
            if (before.contains(m)) continue;
            joins++;
            everMember.add(m);
            List<Integer> sources = new ArrayList<>(next.members());
            sources.remove(Integer.valueOf(m));
            sources.removeIf(id -> nodes[id].db == null); // joiners not started yet
            // The broken copy is the more likely to come before the join from a member that did not make it.
            if (options.joinCopy() == JoinCopy.AT_THE_COMMIT && sources.size() > 1)
                sources.remove(Integer.valueOf(update.origin()));
            int source = sources.get(random.nextInt(sources.size()));
            pendingJoins.add(new PendingJoin(m, update.gsn(), source, now() + nextLong(200)));
        }
        for (int m : before.members()) {
            if (next.contains(m)) continue;
            leaves++;
            departed.add(m);
            // In the liveness phase it may just be stopped: what it still runs is no member's work.
            if (settings.stopRemovedAtCommit() || !faults) after(0, () -> stopForGood(nodes[m]));
            else stopOnceApplied.put(m, update.gsn());
        }
        if (options.joinCopy() == JoinCopy.AT_THE_COMMIT) after(0, this::ringChangesProgress);
    }

    /** Joiners whose database can be copied start; members taken out that applied their removal stop. */
    private void ringChangesProgress() {
        for (var it = pendingJoins.iterator(); it.hasNext(); ) {
            PendingJoin p = it.next();
            SimNode chosen = nodes[p.source()];
            if (options.joinCopy() != JoinCopy.AT_THE_COMMIT && chosen.db.lastGsn() < p.gsn()) {
                if (now() < p.until()) continue;
                // Another database that holds the join will do: the maker's does.
                List<SimNode> holding = new ArrayList<>();
                for (SimNode n : nodes) if (n.db != null && n.db.lastGsn() >= p.gsn()) holding.add(n);
                if (holding.isEmpty()) continue;
                chosen = holding.get(random.nextInt(holding.size()));
            }
            SimNode source = chosen;
            it.remove();
            SimNode joiner = nodes[p.joiner()];
            SimDatabase copy = source.db.copyInto(databases.create(joiner.id,
                    new DurableState(0, DurableState.TokenStatus.NONE, null, List.of()), checker),
                    options.joinCopy() != JoinCopy.WITHOUT_THE_RING);
            trace(() -> joiner.id + " joins on a copy of " + source.id + "'s database at gsn " + copy.lastGsn());
            checker.joined(joiner.id, source.id, copy);
            joiner.join(copy);
            if (!departed.contains(joiner.id)) joiner.start();
            return;
        }
        for (var it = stopOnceApplied.entrySet().iterator(); it.hasNext(); ) {
            var e = it.next();
            SimNode n = nodes[e.getKey()];
            if (n.db == null || n.db.lastGsn() >= e.getValue() || !n.up()) {
                it.remove();
                if (n.up()) {
                    trace(() -> n.id + " applied its removal from the ring and stops");
                    stopForGood(n);
                }
                return;
            }
        }
    }

    /** A member taken out of the ring stops, and is not restarted: what it accepted is lost. */
    private void stopForGood(SimNode n) {
        if (!n.up()) return;
        trace(() -> n.id + " stops: it is no member of the ring");
        n.stop(() -> chance(settings.unknownCommitRate()), options.mode(), false);
        checker.crashed(n.id);
    }

    /** The network: best effort, with loss, duplication and random delay (hence reordering) while faults are on. */
    void send(int from, int to, Message message) {
        messages++;
        lastMessageAt = now();
        byte[] bytes = Codec.encodeMessage(message); // the wire format, as a real transport sends it
        if (faults && (now() < isolatedUntil[from] || now() < isolatedUntil[to] || chance(settings.lossRate()))) {
            trace(() -> "network loses " + from + "->" + to + " " + describe(message));
            return;
        }
        int copies = faults && chance(settings.duplicateRate()) ? 2 : 1;
        for (int c = 0; c < copies; c++) {
            inFlight++;
            long delay = settings.minDelayMillis() + nextLong(settings.maxDelayMillis() - settings.minDelayMillis() + 1);
            after(delay, () -> deliver(from, to, bytes));
        }
    }

    private void deliver(int from, int to, byte[] bytes) {
        inFlight--;
        Message message = Codec.decodeMessage(bytes);
        SimNode n = nodes[to];
        // Peers reach a group at whichever replica listens: a deposed leader that has not noticed still does.
        if (n.deposedRunning() && (!n.up() || chance(0.5))) {
            trace(() -> from + "->" + to + " " + describe(message) + " reaches " + to + "'s deposed leader");
            n.receiveDeposed(message);
            return;
        }
        if (!n.up()) {
            trace(() -> from + "->" + to + " " + describe(message) + " lost: " + to + " is down");
            return;
        }
        trace(() -> from + "->" + to + " " + describe(message));
        n.receive(message);
    }

    // ---------------------------------------------------------------- services for the nodes

    void after(long delay, Runnable run) {
        events.after(delay, run);
    }

    long now() {
        return events.now();
    }

    SimSettings settings() {
        return settings;
    }

    Guards guards() {
        return options.guards();
    }

    HistoryChecker checker() {
        return checker;
    }

    GlobalRequest request(long id) {
        GlobalRequest r = requests.get(id);
        if (r == null) throw new SimulationFailure("the protocol asked to execute unknown request r" + id);
        return r;
    }

    boolean chance(double p) {
        return p > 0 && random.nextDouble() < p;
    }

    /** Uniform in [0, bound). */
    long nextLong(long bound) {
        return bound <= 1 ? 0 : (long) (random.nextDouble() * bound);
    }

    private long interval(long mean) {
        return 1 + nextLong(2 * mean);
    }

    void trace(Supplier<String> line) {
        if (trace != null) trace.add(String.format("%7d %s", now(), line.get()));
    }

    static String describe(Action a) {
        if (a instanceof Action.Send s) return "send " + describe(s.message()) + " to " + s.to();
        if (a instanceof Action.PassToken p) return "pass-token " + describe(p.token()) + " to " + p.to();
        if (a instanceof Action.ApplyUpdates u)
            return "apply-updates " + gsns(u.updates()) + " last-gsn " + u.lastGsn() + ", hold " + describe(u.token());
        if (a instanceof Action.ExecuteGlobals all)
            return "execute-globals " + all.requestIds() + " in parallel";
        if (a instanceof Action.CommitGlobal c)
            return "commit-global r" + c.requestId() + " as gsn " + c.gsn();
        if (a instanceof Action.ApplyAhead ahead)
            return "apply-ahead " + gsns(ahead.updates()) + " last-gsn " + ahead.lastGsn();
        Action.ExecuteGlobal e = (Action.ExecuteGlobal) a;
        return "execute-global r" + e.requestId() + " as gsn " + e.gsn();
    }

    static String describe(Message m) {
        if (m instanceof Message.TokenPass p) return "TokenPass(" + describe(p.token()) + ")";
        if (m instanceof Message.TokenAck a) return "TokenAck(hop " + a.hop() + ")";
        if (m instanceof Message.UpdateAhead a) return "UpdateAhead(" + a.update().gsn() + "@" + a.update().origin() + ")";
        if (m instanceof Message.AppliedAhead a) return "AppliedAhead(up to " + a.gsn() + ")";
        return "Want";
    }

    private static String describe(Token t) {
        return "hop " + t.hop() + " " + gsns(t.updates());
    }

    private static String gsns(List<StateUpdate> updates) {
        StringBuilder s = new StringBuilder("[");
        for (StateUpdate u : updates) s.append(s.length() > 1 ? ", " : "").append(u.gsn()).append('@').append(u.origin());
        return s.append(']').toString();
    }

    // ---------------------------------------------------------------- command line

    public static void main(String[] args) {
        Long seed = null;
        boolean traced = false;
        Injection inject = null;
        Integer sweep = null;
        boolean groups = false;
        boolean rings = false;
        long from = 1, count = 1000;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--seed" -> seed = Long.parseLong(args[++i]);
                case "--trace" -> traced = true;
                case "--from" -> from = Long.parseLong(args[++i]);
                case "--count" -> count = Long.parseLong(args[++i]);
                case "--failover-at" -> inject = Injection.parse(args[++i]);
                case "--sweep" -> sweep = Integer.parseInt(args[++i]);
                case "--groups" -> groups = true;
                case "--rings" -> rings = true;
                default -> {
                    System.err.println("usage: Simulator [--seed N [--trace] [--groups] [--failover-at I:K[:commit|:drop|:seed"
                            + "[:twice]]] [--sweep I]] [--rings] [--from S] [--count C]");
                    System.exit(2);
                }
            }
        }
        if (seed != null && sweep != null) {
            FailoverSweep.Report report = FailoverSweep.sweep(seed, sweep);
            System.out.println(report.describe());
            System.exit(report.failures().isEmpty() ? 0 : 1);
        }
        if (seed != null) {
            Options o = inject == null && !groups ? Options.of(traced, SimDatabase::new) : Options.sweep(traced, inject, -1);
            SimResult r = run(seed, rings ? o.withRings() : o);
            System.out.println(r.settings().describe());
            r.trace().forEach(System.out::println);
            System.out.println(r.summary());
            if (!r.ok()) System.out.println(r.failure());
            System.exit(r.ok() ? 0 : 1);
        }
        int failed = 0;
        long started = System.nanoTime();
        for (long s = from; s < from + count; s++) {
            SimResult r = rings ? run(s, Options.of(false, SimDatabase::new).withRings()) : run(s);
            System.out.println(r.summary());
            if (!r.ok()) {
                failed++;
                System.out.println("  FAILED " + r.failure());
                System.out.println("  replay: " + r.replayCommand());
            }
        }
        System.out.printf("%d seeds (%d..%d), %d failed, %.1f s%n", count, from, from + count - 1, failed,
                (System.nanoTime() - started) / 1e9);
        System.exit(failed == 0 ? 0 : 1);
    }
}
