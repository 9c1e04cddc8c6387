package dev.gyro.protocol;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.StringJoiner;

/**
 * Interprets one scenario script (etcd-raft style): a ring of real {@link ConveyorBelt}s, a network that only
 * moves messages when the script says so, and for each instance a simulated disk (its DBMS with the Gyro
 * metadata) that the script's {@code applied}/{@code executed} commands write exactly as {@link Action}'s
 * Javadoc demands. Each command returns the transcript of what happened: the messages delivered and the
 * actions each instance asked for.
 *
 * <p>Commands (one per line):
 * <pre>
 * ring N [queue Q] [resend MS] [want MS] [parallel on]
 *                                          start N instances from DurableState.initial (parallel on: globals
 *                                          run concurrently, Action.ExecuteGlobals)
 * request I global ID                      global request ID arrives at instance I
 * deliver [A-&gt;B]                           deliver the messages in flight now (all, or those from A to B)
 * drop [A-&gt;B]                              lose the messages in flight (all, or those from A to B)
 * applied I                                I's runtime finishes its pending apply-updates
 * executed I ID write|fail                 I's runtime finishes executing global ID: commits a write, or fails
 *                                          (in parallel: in any order; a write commits the gsn its commit-global
 *                                          granted)
 * ready I ID                               in parallel: I's global ID ran, wrote, and waits for a gsn to commit
 * commit-aborted I ID                      in parallel: the commit granted to ID failed and rolled back
 * tick I|* MS                              instance I (or every running one) sees the clock at MS
 * crash I                                  I loses its memory and every unfinished action; its disk stays
 * restart I                                I restarts from what its disk holds
 * status                                   every instance's role, queue and disk
 * network                                  the messages in flight
 * </pre>
 */
final class ScenarioHarness {

    /** What one instance's DBMS holds: the application's writes and the Gyro metadata, changed atomically. */
    static final class Disk {
        long lastGsn;
        DurableState.TokenStatus status;
        byte[] token; // stored encoded, as the runtime's metadata table does
        final List<byte[]> outbox = new ArrayList<>();
        /** Gsns whose writes are in this database, in the order they were committed. */
        final List<Long> applied = new ArrayList<>();

        Disk(DurableState initial) {
            lastGsn = initial.lastGsn();
            status = initial.tokenStatus();
            token = initial.token() == null ? null : Codec.encodeToken(initial.token());
        }

        DurableState state() {
            return new DurableState(lastGsn, status, token == null ? null : Codec.decodeToken(token),
                    outbox.stream().map(Codec::decodeUpdate).toList());
        }
    }

    static final String SCRIPT_ERROR = "script error: ";

    private record InFlight(int from, int to, byte[] bytes) {}

    private int n;
    private ConveyorBeltConfig[] configs;
    private ConveyorBelt[] belts;
    private Disk[] disks;
    private List<List<Action>> pending; // unfinished ApplyUpdates / ExecuteGlobal(s) per instance, in order
    private List<java.util.Set<Long>> unfinished; // per instance: requests of its ExecuteGlobals not finished yet
    private List<java.util.Map<Long, Long>> granted; // per instance: request -> gsn its CommitGlobal granted
    private final List<InFlight> network = new ArrayList<>();
    private long now;

    /** Runs one command and returns its transcript (never empty). */
    String run(String line) {
        String[] w = line.trim().split("\\s+");
        List<String> out = new ArrayList<>();
        try {
            switch (w[0]) {
                case "ring" -> ring(w, out);
                case "request" -> request(w, out);
                case "deliver" -> deliver(w, out);
                case "drop" -> drop(w, out);
                case "applied" -> applied(w, out);
                case "executed" -> executed(w, out);
                case "ready" -> {
                    belts[up(w[1])].onReadyToCommit(Long.parseLong(w[2]));
                    perform(up(w[1]), out);
                }
                case "commit-aborted" -> {
                    int i = up(w[1]);
                    long id = Long.parseLong(w[2]);
                    expect(granted.get(i).remove(id) != null, i + " granted no commit to r" + id);
                    belts[i].onCommitAborted(id);
                    perform(i, out);
                }
                case "tick" -> tick(w, out);
                case "crash" -> crash(w, out);
                case "restart" -> restart(w, out);
                case "status" -> status(out);
                case "network" -> {
                    for (InFlight m : network) out.add(m.from + "->" + m.to + " " + describe(decode(m)));
                }
                default -> throw new IllegalArgumentException(SCRIPT_ERROR + "unknown command " + w[0]);
            }
        } catch (IllegalStateException e) {
            out.add("error: " + e.getMessage()); // an invariant the protocol checks: part of the transcript
        } catch (IllegalArgumentException e) {
            out.add(e.getMessage()); // a mistake in the script itself; ScenarioTest refuses such transcripts
        }
        return out.isEmpty() ? "(nothing)" : String.join("\n", out);
    }

    // ---------------------------------------------------------------- commands

    private void ring(String[] w, List<String> out) {
        n = Integer.parseInt(w[1]);
        int queue = 10_000;
        long resend = 500, want = 200;
        boolean parallel = false;
        for (int i = 2; i + 1 < w.length; i += 2) {
            switch (w[i]) {
                case "queue" -> queue = Integer.parseInt(w[i + 1]);
                case "resend" -> resend = Long.parseLong(w[i + 1]);
                case "want" -> want = Long.parseLong(w[i + 1]);
                case "parallel" -> parallel = w[i + 1].equals("on");
                default -> throw new IllegalArgumentException(SCRIPT_ERROR + "unknown ring option " + w[i]);
            }
        }
        configs = new ConveyorBeltConfig[n];
        belts = new ConveyorBelt[n];
        disks = new Disk[n];
        pending = new ArrayList<>();
        unfinished = new ArrayList<>();
        granted = new ArrayList<>();
        network.clear();
        now = 0;
        for (int i = 0; i < n; i++) {
            configs[i] = new ConveyorBeltConfig(i, n, queue, resend, want, parallel);
            disks[i] = new Disk(DurableState.initial(i));
            pending.add(new ArrayList<>());
            unfinished.add(new java.util.LinkedHashSet<>());
            granted.add(new java.util.HashMap<>());
            belts[i] = new ConveyorBelt(configs[i], disks[i].state(), now);
            perform(i, out);
        }
    }

    private void request(String[] w, List<String> out) {
        int i = instance(w[1]);
        expect(w[2].equals("global"), "only global requests reach the Conveyor Belt (Algorithm 1, lines 2-4)");
        long id = Long.parseLong(w[3]);
        if (!belts[i].onGlobalRequest(id)) out.add(i + ": refused r" + id + " (queue full)");
        perform(i, out);
    }

    private void deliver(String[] w, List<String> out) {
        List<InFlight> now = take(w);
        for (InFlight m : now) {
            Message message = decode(m);
            if (belts[m.to] == null) {
                out.add(m.from + "->" + m.to + " " + describe(message) + " (lost: " + m.to + " is down)");
                continue;
            }
            out.add(m.from + "->" + m.to + " " + describe(message));
            belts[m.to].onMessage(message);
            perform(m.to, out);
        }
    }

    private void drop(String[] w, List<String> out) {
        for (InFlight m : take(w)) out.add("dropped " + m.from + "->" + m.to + " " + describe(decode(m)));
    }

    /** Removes and returns the messages in flight that match "A->B" (or all). */
    private List<InFlight> take(String[] w) {
        int from = -1, to = -1;
        if (w.length > 1) {
            String[] ends = w[1].split("->");
            from = instance(ends[0]);
            to = instance(ends[1]);
        }
        List<InFlight> taken = new ArrayList<>();
        for (Iterator<InFlight> it = network.iterator(); it.hasNext(); ) {
            InFlight m = it.next();
            if (from < 0 || (m.from == from && m.to == to)) {
                taken.add(m);
                it.remove();
            }
        }
        return taken;
    }

    private void applied(String[] w, List<String> out) {
        int i = up(w[1]);
        Action next = pending.get(i).isEmpty() ? null : pending.get(i).get(0);
        expect(next instanceof Action.ApplyUpdates, i + " has no pending apply-updates (pending: " + pending.get(i) + ")");
        pending.get(i).remove(0);
        Action.ApplyUpdates a = (Action.ApplyUpdates) next;
        // One atomic DBMS transaction (Action.ApplyUpdates): the updates, the held token, lastGsn, the outbox.
        Disk d = disks[i];
        for (StateUpdate u : a.updates()) d.applied.add(u.gsn());
        d.status = DurableState.TokenStatus.HELD;
        d.token = Codec.encodeToken(a.token());
        d.lastGsn = a.lastGsn();
        d.outbox.clear();
        belts[i].onUpdatesApplied(a.token().hop());
        perform(i, out);
    }

    private void executed(String[] w, List<String> out) {
        int i = up(w[1]);
        long id = Long.parseLong(w[2]);
        Action next = pending.get(i).isEmpty() ? null : pending.get(i).get(0);
        long gsn;
        if (next instanceof Action.ExecuteGlobals all) {
            // Parallel globals: any of the round's requests may finish next; one that commits a write commits the
            // gsn its CommitGlobal granted (Action.CommitGlobal).
            expect(unfinished.get(i).remove(id), i + " is not executing r" + id + " (pending: " + pending.get(i)
                    + ", unfinished " + unfinished.get(i) + ")");
            if (unfinished.get(i).isEmpty()) pending.get(i).remove(0);
            Long grant = granted.get(i).remove(id);
            expect(grant != null || !w[3].equals("write"), i + " granted no commit to r" + id);
            gsn = grant == null ? -1 : grant;
        } else {
            expect(next instanceof Action.ExecuteGlobal e && e.requestId() == id,
                    i + " is not executing r" + id + " (pending: " + pending.get(i) + ")");
            pending.get(i).remove(0);
            gsn = ((Action.ExecuteGlobal) next).gsn();
        }
        StateUpdate update = null;
        switch (w[3]) {
            case "write" -> {
                // The request's writes, lastGsn and the outbox entry commit in one DBMS transaction.
                update = new StateUpdate(gsn, i, List.of(new RowChange("t", RowChange.Kind.UPSERT,
                        List.of("k", "v"), List.of(new Value.Int(id), new Value.Text("written by r" + id)),
                        List.of("k"))));
                Disk d = disks[i];
                d.applied.add(gsn);
                d.lastGsn = gsn;
                d.outbox.add(Codec.encodeUpdate(update));
            }
            case "fail" -> { } // rolled back: nothing is stored, no gsn is used
            default -> throw new IllegalArgumentException(SCRIPT_ERROR + "executed I ID write|fail, not " + w[3]);
        }
        belts[i].onGlobalExecuted(id, update);
        perform(i, out);
    }

    private void tick(String[] w, List<String> out) {
        long t = Long.parseLong(w[2]);
        expect(t >= now, "time goes forward: " + t + " < " + now);
        now = t;
        for (int i = 0; i < n; i++) {
            if (w[1].equals("*") ? belts[i] != null : i == up(w[1])) {
                belts[i].onTick(t);
                perform(i, out);
            }
        }
    }

    private void crash(String[] w, List<String> out) {
        int i = up(w[1]);
        StringJoiner lost = new StringJoiner(", ");
        for (Action a : pending.get(i)) lost.add(describe(a));
        int queued = belts[i].queuedGlobals();
        belts[i] = null;
        pending.get(i).clear();
        unfinished.get(i).clear();
        granted.get(i).clear();
        out.add(i + " crashed" + (queued > 0 ? ", " + queued + " queued global(s) lost" : "")
                + (lost.length() > 0 ? ", unfinished: " + lost : ""));
    }

    private void restart(String[] w, List<String> out) {
        int i = instance(w[1]);
        expect(belts[i] == null, i + " is running");
        DurableState state = disks[i].state();
        out.add(i + " restarts from disk: " + describeDisk(disks[i]));
        belts[i] = new ConveyorBelt(configs[i], state, now);
        perform(i, out);
    }

    private void status(List<String> out) {
        for (int i = 0; i < n; i++) {
            ConveyorBelt b = belts[i];
            String mem = b == null ? "down" : b.role() + " last-gsn " + b.lastGsn() + " queued " + b.queuedGlobals();
            out.add(i + ": " + mem + " | disk " + describeDisk(disks[i]));
        }
    }

    // ---------------------------------------------------------------- performing actions

    /** Collects what instance {@code i} asks for; sends go on the network, DBMS work waits for the script. */
    private void perform(int i, List<String> out) {
        for (Action a : belts[i].ready()) {
            out.add("  " + i + ": " + describe(a));
            if (a instanceof Action.Send s) {
                network.add(new InFlight(i, s.to(), Codec.encodeMessage(s.message())));
            } else if (a instanceof Action.PassToken p) {
                // Line 19: durably record the token as passed, then send it.
                disks[i].status = DurableState.TokenStatus.PASSED;
                disks[i].token = Codec.encodeToken(p.token());
                network.add(new InFlight(i, p.to(), Codec.encodeMessage(new Message.TokenPass(i, p.token()))));
            } else if (a instanceof Action.CommitGlobal c) {
                granted.get(i).put(c.requestId(), c.gsn()); // the script's executed command commits it
            } else {
                if (a instanceof Action.ExecuteGlobals all) unfinished.get(i).addAll(all.requestIds());
                pending.get(i).add(a);
            }
        }
    }

    // ---------------------------------------------------------------- formatting

    static String describe(Action a) {
        if (a instanceof Action.Send s) return "send " + describe(s.message()) + " to " + s.to();
        if (a instanceof Action.PassToken p) return "pass-token " + describe(p.token()) + " to " + p.to();
        if (a instanceof Action.ApplyUpdates u)
            return "apply-updates " + updates(u.updates()) + " last-gsn " + u.lastGsn() + ", hold " + describe(u.token());
        if (a instanceof Action.ExecuteGlobals all) {
            StringJoiner ids = new StringJoiner(", ", "[", "]");
            for (long id : all.requestIds()) ids.add("r" + id);
            return "execute-globals " + ids + " in parallel";
        }
        if (a instanceof Action.CommitGlobal c) return "commit-global r" + c.requestId() + " as gsn " + c.gsn();
        Action.ExecuteGlobal e = (Action.ExecuteGlobal) a;
        return "execute-global r" + e.requestId() + " as gsn " + e.gsn();
    }

    static String describe(Message m) {
        if (m instanceof Message.TokenPass p) return "TokenPass(" + describe(p.token()) + ")";
        if (m instanceof Message.TokenAck a) return "TokenAck(hop " + a.hop() + ")";
        return "Want";
    }

    static String describe(Token t) {
        return "hop " + t.hop() + " " + updates(t.updates());
    }

    /** {@code [2@1:r101]}: gsn 2, executed at instance 1, by global request 101. */
    static String updates(List<StateUpdate> updates) {
        StringJoiner j = new StringJoiner(", ", "[", "]");
        for (StateUpdate u : updates) {
            String tag = u.changes().isEmpty() ? "" : ":r" + u.changes().get(0).value("k");
            j.add(u.gsn() + "@" + u.origin() + tag);
        }
        return j.toString();
    }

    private static String describeDisk(Disk d) {
        String token = d.token == null ? "" : " " + describe(Codec.decodeToken(d.token));
        return d.status + token + " last-gsn " + d.lastGsn + " outbox "
                + updates(d.outbox.stream().map(Codec::decodeUpdate).toList()) + " applied " + d.applied;
    }

    private static Message decode(InFlight m) {
        return Codec.decodeMessage(m.bytes);
    }

    // ---------------------------------------------------------------- helpers

    private int instance(String s) {
        int i = Integer.parseInt(s);
        if (i < 0 || i >= n) throw new IllegalArgumentException(SCRIPT_ERROR + "no instance " + s + " in a ring of " + n);
        return i;
    }

    private int up(String s) {
        int i = instance(s);
        expect(belts[i] != null, i + " is down");
        return i;
    }

    private static void expect(boolean condition, String message) {
        if (!condition) throw new IllegalArgumentException(SCRIPT_ERROR + message);
    }
}
