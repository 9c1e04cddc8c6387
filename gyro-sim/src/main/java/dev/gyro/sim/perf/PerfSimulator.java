package dev.gyro.sim.perf;

import dev.gyro.driver.BeltActions;
import dev.gyro.driver.BeltLoop;
import dev.gyro.protocol.Action;
import dev.gyro.protocol.BeltEvent;
import dev.gyro.protocol.ConveyorBelt;
import dev.gyro.protocol.ConveyorBeltConfig;
import dev.gyro.protocol.DurableState;
import dev.gyro.protocol.Message;
import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.StateUpdate;
import dev.gyro.protocol.Token;
import dev.gyro.protocol.Value;
import dev.gyro.sim.EventQueue;
import dev.gyro.sim.SimulatedThread;
import org.HdrHistogram.Histogram;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The performance simulator: the real {@link ConveyorBelt} on every instance of a ring, driven in simulated time by a
 * cost model ({@link PerfModel}) instead of faults. Where the fault-finding {@link dev.gyro.sim.Simulator} asks whether
 * the ring is correct, this one asks how fast it is: each instance's database is a server of a few service slots,
 * every message takes the hop latency, and closed-loop clients send local and global requests at a given ratio.
 *
 * <ul>
 *   <li>a <b>local</b> request takes a slot of its home instance for the local service time (Algorithm 1, lines
 *       2-4: no coordination);</li>
 *   <li>a <b>global</b> request is queued in its home instance's belt ({@code onGlobalRequest}); when the token comes,
 *       the belt asks for it to be executed, which takes a slot for the global service time, ahead of queued local
 *       requests (the token holder's lane of the benchmarks' capacity emulation), one at a time or a round side by
 *       side as the belt's configuration says (paper Appendix B);</li>
 *   <li>a received token's state updates are applied in one transaction that takes a slot (ahead) for the per-update
 *       cost times their number; a token that brings nothing to apply costs nothing;</li>
 *   <li>with several belts ({@link PerfSetting#belts()}), each instance runs one {@link ConveyorBelt} per belt, each
 *       with its own token and gsns, all sharing the instance's slots.</li>
 * </ul>
 * Nothing fails and no message is lost. One seeded {@link Random} decides every client's choices, so a seed gives the
 * same figures every time. Time runs in microseconds; the belts see milliseconds, as the runtime's clock gives them.
 */
public final class PerfSimulator {

    /**
     * A window shorter than three token rotations is stretched, up to this many times the setting's: replies to global
     * requests come in bursts, one per visit of the token, so a window must hold several rotations to give a rate.
     */
    public static final int MAX_WINDOW_STRETCH = 4;

    /** A run that needs more events than this is running away rather than measuring. */
    static final long EVENT_BUDGET = 400_000_000L;

    /** The row image every simulated update carries: its size does not matter here, its count does. */
    private static final RowChange ROW = new RowChange("perf", RowChange.Kind.UPSERT, List.of("k"),
            List.of(Value.of(0L)), List.of("k"));

    private record Call(int client, long sentAt) {}

    private final PerfModel model;
    private final PerfSetting setting;
    private final Random random;
    private final EventQueue events = new EventQueue();
    private final Instance[] instances;
    private final long windowStart;
    private long windowEnd;
    private final long localMicros, globalMicros, hopMicros;

    private final Map<Long, Call> globalCalls = new HashMap<>();
    private long nextRequestId = 1;
    private final Histogram localLatency = new Histogram(3), globalLatency = new Histogram(3);
    private long tokenPasses, messages, rotations;
    private double rotationMicros;
    /** Per belt, the time its token has spent parked so far: a rotation counts the token's moving time only. */
    private final long[] parkedMicros;

    private PerfSimulator(PerfModel model, PerfSetting setting) {
        this.model = model;
        this.setting = setting;
        this.random = new Random(setting.seed());
        this.windowStart = setting.warmupMs() * 1000;
        this.windowEnd = windowStart + setting.measureMs() * 1000;
        this.localMicros = micros(model.localMs());
        this.globalMicros = micros(model.globalMs());
        this.hopMicros = micros(model.hopLatencyMs());
        this.parkedMicros = new long[setting.belts()];
        this.instances = new Instance[setting.instances()];
        for (int i = 0; i < instances.length; i++) instances[i] = new Instance(i);
    }

    /** Simulates one point. */
    public static PerfResult run(PerfModel model, PerfSetting setting) {
        return new PerfSimulator(model, setting).simulate();
    }

    private PerfResult simulate() {
        int clients = setting.instances() * setting.clientsPerInstance();
        for (int c = 0; c < clients; c++) {
            int client = c;
            // staggered over one local service time, so that the clients do not move in lockstep
            events.after(nextLong(localMicros), () -> send(client));
        }
        long longest = windowStart + MAX_WINDOW_STRETCH * setting.measureMs() * 1000;
        while (true) {
            events.runUntil(windowEnd, () -> false, count -> {
                if (count > EVENT_BUDGET)
                    throw new IllegalStateException("runaway: more than " + EVENT_BUDGET + " events at " + setting.describe());
            });
            long window = windowEnd - windowStart;
            boolean globals = setting.localRatio() < 1 && setting.instances() > 1;
            double rotation = rotations == 0 ? Double.POSITIVE_INFINITY : rotationMicros / rotations;
            if (!globals || 3 * rotation <= window || windowEnd >= longest) break;
            windowEnd = Math.min(longest, windowStart + Math.max(window + setting.measureMs() * 1000,
                    Double.isFinite(rotation) ? (long) (4 * rotation) : 0));
        }
        double seconds = (windowEnd - windowStart) / 1e6;
        double busy = 0;
        for (Instance i : instances) busy += i.busyMicrosInWindow();
        long localCount = localLatency.getTotalCount(), globalCount = globalLatency.getTotalCount();
        return new PerfResult(model, setting, (localCount + globalCount) / seconds, localCount / seconds,
                globalCount / seconds, latency(localLatency), latency(globalLatency),
                rotations == 0 ? Double.NaN : rotationMicros / rotations / 1000.0,
                busy / ((windowEnd - windowStart) * (double) model.slots() * instances.length), tokenPasses, messages,
                seconds, events.processed());
    }

    // ------------------------------------------------------------------------------------------- clients

    /** The client's next request, local or global by the ratio, at its home instance. */
    private void send(int client) {
        Instance home = instances[client / setting.clientsPerInstance()];
        long sentAt = events.now();
        if (random.nextDouble() < setting.localRatio()) {
            home.serve(false, localMicros, () -> answered(client, sentAt, localLatency));
        } else {
            long id = nextRequestId++;
            globalCalls.put(id, new Call(client, sentAt));
            int belt = setting.belts() == 1 ? 0 : random.nextInt(setting.belts());
            home.belts[belt].submit(id);
        }
    }

    private void answered(int client, long sentAt, Histogram latency) {
        if (inWindow()) latency.recordValue(Math.max(1, events.now() - sentAt));
        send(client);
    }

    private void answeredGlobal(long requestId) {
        Call call = globalCalls.remove(requestId);
        if (call == null) throw new IllegalStateException("the belt executed unknown global request " + requestId);
        answered(call.client(), call.sentAt(), globalLatency);
    }

    // ------------------------------------------------------------------------------------------- the world

    private boolean inWindow() {
        long now = events.now();
        return now >= windowStart && now < windowEnd;
    }

    private void deliver(int to, int belt, Message message) {
        if (inWindow()) messages++;
        events.after(hopMicros, () -> instances[to].belts[belt].receive(message));
    }

    private long nextLong(long bound) {
        return bound <= 1 ? 0 : (long) (random.nextDouble() * bound);
    }

    private static long micros(double ms) {
        return Math.round(ms * 1000);
    }

    private static PerfResult.Latency latency(Histogram h) {
        if (h.getTotalCount() == 0) return PerfResult.Latency.NONE;
        return new PerfResult.Latency(h.getTotalCount(), h.getMean() / 1000.0, h.getValueAtPercentile(50) / 1000.0,
                h.getValueAtPercentile(99) / 1000.0);
    }

    /** One instance: its database's slots and one belt driver per belt. */
    private final class Instance {
        final int id;
        final BeltDriver[] belts;
        private int free = model.slots();
        private final ArrayDeque<Work> ahead = new ArrayDeque<>(), behind = new ArrayDeque<>();
        private long lastChange;
        private long busyMicros;

        private record Work(long micros, Runnable done) {}

        Instance(int id) {
            this.id = id;
            this.belts = new BeltDriver[setting.belts()];
            for (int b = 0; b < belts.length; b++) belts[b] = new BeltDriver(this, b);
        }

        /**
         * A transaction of {@code micros} service time: in a free slot now, or queued, in its lane, until one frees.
         * The belt's work ({@code first}) goes before every queued local request.
         */
        void serve(boolean first, long micros, Runnable done) {
            Work w = new Work(micros, done);
            if (free > 0) start(w);
            else (first ? ahead : behind).addLast(w);
        }

        private void start(Work w) {
            account();
            free--;
            events.after(w.micros(), () -> {
                account();
                free++;
                Work next = !ahead.isEmpty() ? ahead.pollFirst() : behind.pollFirst();
                if (next != null) start(next); // the queue's next goes before whatever this completion sends
                w.done().run();
            });
        }

        /** Adds the slot time used since the last change, clipped to the measured window. */
        private void account() {
            long now = events.now();
            long from = Math.max(lastChange, windowStart), to = Math.min(now, windowEnd);
            if (to > from) busyMicros += (to - from) * (model.slots() - free);
            lastChange = now;
        }

        long busyMicrosInWindow() {
            account();
            return busyMicros;
        }
    }

    /**
     * One real {@link ConveyorBelt}, driven by the runtime's own driver ({@link BeltLoop}, {@link BeltActions}) on
     * simulated time, over this simulator's costs: the belt's durable duties take a slot of the instance's database
     * for their cost, a global request takes one for the global service time, a message the hop latency.
     */
    private final class BeltDriver implements BeltActions.BeltStore, BeltActions.Peers, BeltActions.Globals,
            BeltActions.Progress {
        final Instance at;
        final int belt;
        final ConveyorBelt conveyor;
        private final BeltLoop loop;
        private long lastTickMs = -1;
        private long passedAt = -1, parkedBeforePass;
        private long parkedSince = -1;

        BeltDriver(Instance at, int belt) {
            this.at = at;
            this.belt = belt;
            ConveyorBeltConfig config = ConveyorBeltConfig.of(at.id, setting.instances())
                    .withParallelGlobals(setting.parallelGlobals()).withUpdatesAhead(setting.updatesAhead());
            this.conveyor = new ConveyorBelt(config, DurableState.initial(at.id), 0);
            this.loop = new BeltLoop(at.id, conveyor, new SimulatedThread(events::after, () -> 0, Runnable::run),
                    why -> {
                        throw why instanceof RuntimeException e ? e : new IllegalStateException(why);
                    }, view -> accountParked(), BeltLoop.Recorder.NONE, () -> events.now() / 1000);
            loop.start(new BeltActions(at.id, this, this, this, loop::step, this));
        }

        /** The belt's clock, in milliseconds, brought up to now before every event it is given. */
        private void step(BeltEvent event) {
            long ms = events.now() / 1000;
            if (ms != lastTickMs) {
                lastTickMs = ms;
                loop.step(new BeltEvent.Tick(ms));
            }
            loop.step(event);
        }

        void submit(long requestId) {
            step(new BeltEvent.GlobalRequest(requestId));
        }

        void receive(Message message) {
            step(new BeltEvent.MessageReceived(message));
        }

        /**
         * A parked spell that the event just given ended is counted; after each event, and before a pass or an arrival
         * of the token is measured (the event decided the role before its actions are performed).
         */
        private void accountParked() {
            boolean parked = conveyor.role() == ConveyorBelt.Role.PARKED;
            if (parked && parkedSince < 0) {
                parkedSince = events.now();
            } else if (!parked && parkedSince >= 0) {
                parkedMicros[belt] += events.now() - parkedSince;
                parkedSince = -1;
            }
        }

        // ---------------------------------------------------------------- the belt's durable duties, at their cost

        @Override
        public CompletionStage<Void> applyUpdates(Action.ApplyUpdates apply) {
            int updates = apply.updates().size();
            if (updates == 0) return BeltLoop.DONE; // records the token only
            return served(micros(updates * model.applyMsPerUpdate()));
        }

        @Override
        public CompletionStage<Void> applyAhead(Action.ApplyAhead ahead) {
            // the same apply, off the token's path: the instance is not holding the token (decision 25)
            return served(micros(ahead.updates().size() * model.applyMsPerUpdate()));
        }

        @Override
        public CompletionStage<Void> recordPassed(Token token) {
            return BeltLoop.DONE;
        }

        /** A transaction of the belt's, ahead of queued local requests: done once served. */
        private CompletionStage<Void> served(long micros) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            at.serve(true, micros, () -> done.complete(null));
            return done;
        }

        @Override
        public void send(int to, Message message) {
            deliver(to, belt, message);
        }

        // ---------------------------------------------------------------- global requests, at the global service time

        @Override
        public void queued(long requestId, boolean holdsToken, boolean wasParked) {}

        @Override
        public void refused(long requestId, int queued) {
            throw new IllegalStateException("instance " + at.id + " refused global request " + requestId
                    + ": its queue is full (" + setting.describe() + ")");
        }

        @Override
        public void tokenArrived() {
            accountParked();
            if (passedAt >= 0 && inWindow()) {
                rotations++;
                rotationMicros += events.now() - passedAt - (parkedMicros[belt] - parkedBeforePass);
            }
            passedAt = -1;
        }

        @Override
        public void execute(Action.ExecuteGlobal one) {
            at.serve(true, globalMicros, () -> executed(one.requestId(), one.gsn()));
        }

        @Override
        public void execute(Action.ExecuteGlobals round) {
            for (long id : round.requestIds())
                at.serve(true, globalMicros, () -> step(new BeltEvent.ReadyToCommit(id)));
        }

        @Override
        public void grant(Action.CommitGlobal commit) {
            // belongs to the round in progress, which waits for it; the commit itself costs nothing here
            events.after(0, () -> executed(commit.requestId(), commit.gsn()));
        }

        private void executed(long requestId, long gsn) {
            step(new BeltEvent.GlobalExecuted(requestId, new StateUpdate(gsn, at.id, List.of(ROW))));
            answeredGlobal(requestId);
        }

        // ---------------------------------------------------------------- what is measured

        @Override
        public void tokenSent(int to, long hop, boolean passed) {
            if (!passed) return;
            accountParked();
            if (inWindow()) tokenPasses++;
            passedAt = events.now();
            parkedBeforePass = parkedMicros[belt];
        }

        @Override
        public void applied(int updates, long lastGsn, boolean ahead) {}

        @Override
        public void tokenReceived(long hop, int updates) {}

        @Override
        public void heard(Message message) {}
    }
}
