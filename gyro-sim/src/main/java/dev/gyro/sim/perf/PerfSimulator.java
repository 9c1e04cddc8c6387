package dev.gyro.sim.perf;

import dev.gyro.protocol.Action;
import dev.gyro.protocol.BeltEvent;
import dev.gyro.protocol.ConveyorBelt;
import dev.gyro.protocol.ConveyorBeltConfig;
import dev.gyro.protocol.DurableState;
import dev.gyro.protocol.Message;
import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.StateUpdate;
import dev.gyro.protocol.Value;
import dev.gyro.sim.EventQueue;
import org.HdrHistogram.Histogram;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

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
     * Feeds one real {@link ConveyorBelt} its events and performs its actions in order, as each action's Javadoc asks
     * of a runtime (the same duties as the fault-finding simulator's node, with the model's costs instead of faults).
     */
    private final class BeltDriver {
        final Instance at;
        final int belt;
        final ConveyorBelt conveyor;
        private final ArrayDeque<Action> todo = new ArrayDeque<>();
        private boolean busy; // applying a token, or executing a global request or a round
        private int unreported; // a round's requests not yet reported
        private long lastTickMs = -1;
        private long passedAt = -1, parkedBeforePass;
        private long parkedSince = -1;

        BeltDriver(Instance at, int belt) {
            this.at = at;
            this.belt = belt;
            ConveyorBeltConfig config = ConveyorBeltConfig.of(at.id, setting.instances())
                    .withParallelGlobals(setting.parallelGlobals()).withUpdatesAhead(setting.updatesAhead());
            this.conveyor = new ConveyorBelt(config, DurableState.initial(at.id), 0);
        }

        /** The belt's clock, in milliseconds, brought up to now before every event it is given. */
        private void tick() {
            long ms = events.now() / 1000;
            if (ms != lastTickMs) {
                lastTickMs = ms;
                conveyor.step(new BeltEvent.Tick(ms));
            }
        }

        void submit(long requestId) {
            tick();
            if (!conveyor.step(new BeltEvent.GlobalRequest(requestId)))
                throw new IllegalStateException("instance " + at.id + " refused global request " + requestId
                        + ": its queue is full (" + setting.describe() + ")");
            perform();
        }

        void receive(Message message) {
            tick();
            conveyor.step(new BeltEvent.MessageReceived(message));
            perform();
        }

        private void perform() {
            // the event just given decided the role; a parked spell that ended must be counted before a pass it led to
            boolean parked = conveyor.role() == ConveyorBelt.Role.PARKED;
            if (parked && parkedSince < 0) {
                parkedSince = events.now();
            } else if (!parked && parkedSince >= 0) {
                parkedMicros[belt] += events.now() - parkedSince;
                parkedSince = -1;
            }
            for (Action action : conveyor.ready()) {
                if (action instanceof Action.CommitGlobal grant) {
                    // belongs to the round in progress, which waits for it; the commit itself costs nothing here
                    events.after(0, () -> committed(grant.requestId(), grant.gsn()));
                } else {
                    todo.addLast(action);
                }
            }
            while (!busy && !todo.isEmpty()) {
                Action action = todo.pollFirst();
                if (action instanceof Action.Send send) {
                    deliver(send.to(), belt, send.message());
                } else if (action instanceof Action.PassToken pass) {
                    if (inWindow()) tokenPasses++;
                    passedAt = events.now();
                    parkedBeforePass = parkedMicros[belt];
                    deliver(pass.to(), belt, new Message.TokenPass(at.id, pass.token()));
                } else if (action instanceof Action.ApplyUpdates apply) {
                    busy = true;
                    if (passedAt >= 0 && inWindow()) {
                        rotations++;
                        rotationMicros += events.now() - passedAt - (parkedMicros[belt] - parkedBeforePass);
                    }
                    passedAt = -1;
                    long hop = apply.token().hop();
                    int updates = apply.updates().size();
                    if (updates == 0) events.after(0, () -> applied(hop)); // records the token only
                    else at.serve(true, micros(updates * model.applyMsPerUpdate()), () -> applied(hop));
                } else if (action instanceof Action.ApplyAhead ahead) {
                    // the same apply, off the token's path: the instance is not holding the token (decision 25)
                    busy = true;
                    at.serve(true, micros(ahead.updates().size() * model.applyMsPerUpdate()), () -> {
                        busy = false;
                        tick();
                        perform();
                    });
                } else if (action instanceof Action.ExecuteGlobal one) {
                    busy = true;
                    at.serve(true, globalMicros, () -> executed(one.requestId(), one.gsn()));
                } else if (action instanceof Action.ExecuteGlobals round) {
                    busy = true;
                    unreported = round.requestIds().size();
                    for (long id : round.requestIds())
                        at.serve(true, globalMicros, () -> {
                            tick();
                            conveyor.step(new BeltEvent.ReadyToCommit(id));
                            perform();
                        });
                } else {
                    throw new IllegalStateException("unexpected action " + action);
                }
            }
        }

        private void applied(long hop) {
            busy = false;
            tick();
            conveyor.step(new BeltEvent.UpdatesApplied(hop));
            perform();
        }

        private void executed(long requestId, long gsn) {
            busy = false;
            tick();
            conveyor.step(new BeltEvent.GlobalExecuted(requestId, new StateUpdate(gsn, at.id, List.of(ROW))));
            answeredGlobal(requestId);
            perform();
        }

        private void committed(long requestId, long gsn) {
            tick();
            conveyor.step(new BeltEvent.GlobalExecuted(requestId, new StateUpdate(gsn, at.id, List.of(ROW))));
            if (--unreported == 0) busy = false;
            answeredGlobal(requestId);
            perform();
        }
    }
}
