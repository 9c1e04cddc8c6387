package dev.gyro.sim;

import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.StateUpdate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The checkers, kept apart from the code they check (TigerBeetle's VOPR): they see only what clients submitted,
 * what the databases committed ({@link SimDatabase.CommitLog}) and, at the end, the databases themselves.
 * They know nothing of tokens, hops or roles.
 *
 * <ul>
 *   <li>One canonical sequence of state updates: every instance commits gsns 1, 2, 3, ... in order, with no gap
 *       and no repeat, and gsn g has the same content everywhere.</li>
 *   <li>Serializability of global requests: executing the requests of the canonical sequence one after another,
 *       in gsn order, on a reference database writes exactly what each update carries.</li>
 *   <li>Exactly once: no request completes twice; a request lost with a crashed instance never completes later;
 *       at the end every accepted request that was not lost has completed (committed, failed, or wrote
 *       nothing).</li>
 *   <li>Convergence: at the end every database holds the whole canonical sequence and equals the reference.</li>
 * </ul>
 */
final class HistoryChecker implements SimDatabase.CommitLog {

    enum Fate { UNREACHABLE, REFUSED, ACCEPTED, LOST, COMMITTED, FAILED, WROTE_NOTHING }

    private static final class Submitted {
        final GlobalRequest request;
        Fate fate;

        Submitted(GlobalRequest request, Fate fate) {
            this.request = request;
            this.fate = fate;
        }
    }

    private final Map<Long, Submitted> requests = new HashMap<>();
    private final List<StateUpdate> canonical = new ArrayList<>(); // gsn g at index g - 1
    private final long[] lastCommitted;
    private final TreeMap<Long, Long> reference = new TreeMap<>();

    HistoryChecker(int instances) {
        lastCommitted = new long[instances];
    }

    // ---------------------------------------------------------------- what clients saw

    void submitted(GlobalRequest request, Fate fate) {
        if (requests.putIfAbsent(request.id(), new Submitted(request, fate)) != null)
            throw new SimulationFailure("request id " + request.id() + " submitted twice");
    }

    /** The instance crashed: what it had accepted and not completed is lost (its clients get no reply). */
    void crashed(int instance) {
        for (Submitted s : requests.values())
            if (s.fate == Fate.ACCEPTED && s.request.instance() == instance) s.fate = Fate.LOST;
    }

    /** Execution of the request rolled back, or wrote nothing: no update, no gsn. */
    void completedWithoutUpdate(int instance, long requestId, boolean failed) {
        complete(instance, requestId, failed ? Fate.FAILED : Fate.WROTE_NOTHING);
    }

    // ---------------------------------------------------------------- what the databases committed

    @Override
    public void executed(int instance, long requestId, StateUpdate update) {
        complete(instance, requestId, Fate.COMMITTED);
        if (update.origin() != instance)
            throw new SimulationFailure("instance " + instance + " committed r" + requestId + " as an update of origin "
                    + update.origin());
        if (update.gsn() != canonical.size() + 1)
            throw new SimulationFailure("instance " + instance + " executed r" + requestId + " as gsn " + update.gsn()
                    + " but the canonical sequence has " + canonical.size() + " updates"
                    + (update.gsn() <= canonical.size() ? ": gsn " + update.gsn() + " is taken twice" : ": a gap"));
        // Serial execution in gsn order must write exactly what the origin wrote.
        List<RowChange> expected = requests.get(requestId).request.execute(reference);
        if (!expected.equals(update.changes()))
            throw new SimulationFailure("not serializable: r" + requestId + " committed as gsn " + update.gsn() + " at "
                    + instance + " wrote " + update.changes() + " but executed after gsns 1.." + canonical.size()
                    + " it writes " + expected);
        GlobalRequest.apply(update.changes(), reference);
        canonical.add(update);
        commit(instance, update);
    }

    @Override
    public void applied(int instance, StateUpdate update) {
        if (update.origin() == instance)
            throw new SimulationFailure("instance " + instance + " applied its own update of gsn " + update.gsn());
        if (update.gsn() > canonical.size())
            throw new SimulationFailure("instance " + instance + " applied gsn " + update.gsn()
                    + " that no instance executed (canonical sequence has " + canonical.size() + ")");
        StateUpdate original = canonical.get((int) update.gsn() - 1);
        if (!original.equals(update))
            throw new SimulationFailure("gsn " + update.gsn() + " differs at instance " + instance + ": " + update
                    + " but canonical " + original);
        commit(instance, update);
    }

    private void commit(int instance, StateUpdate update) {
        long expected = lastCommitted[instance] + 1;
        if (update.gsn() != expected)
            throw new SimulationFailure("instance " + instance + " committed gsn " + update.gsn() + " after gsn "
                    + lastCommitted[instance] + (update.gsn() < expected ? ": a repeat" : ": a gap"));
        lastCommitted[instance] = update.gsn();
    }

    private void complete(int instance, long requestId, Fate fate) {
        Submitted s = requests.get(requestId);
        if (s == null) throw new SimulationFailure("instance " + instance + " completed unknown request r" + requestId);
        if (s.request.instance() != instance)
            throw new SimulationFailure("r" + requestId + " was sent to " + s.request.instance() + " but completed at "
                    + instance);
        if (s.fate != Fate.ACCEPTED)
            throw new SimulationFailure("r" + requestId + " completed (" + fate + ") but it was already " + s.fate);
        s.fate = fate;
    }

    // ---------------------------------------------------------------- at the end

    /**
     * After the liveness phase: every instance has committed the whole canonical sequence, its database equals
     * the reference, the protocol's own view agrees, and nothing accepted is left undone.
     */
    void checkConverged(List<SimDatabase> databases, long[] protocolLastGsn) {
        long last = canonical.size();
        for (int i = 0; i < databases.size(); i++) {
            SimDatabase db = databases.get(i);
            if (lastCommitted[i] != last)
                throw new SimulationFailure("instance " + i + " committed gsns 1.." + lastCommitted[i] + " of 1.." + last);
            if (db.lastGsn() != last)
                throw new SimulationFailure("instance " + i + " records last gsn " + db.lastGsn() + ", expected " + last);
            if (protocolLastGsn[i] != last)
                throw new SimulationFailure("instance " + i + "'s Conveyor Belt says last gsn " + protocolLastGsn[i]
                        + ", expected " + last);
            if (!db.rows().equals(reference))
                throw new SimulationFailure("instance " + i + "'s table " + db.rows() + " differs from the serial "
                        + "execution " + reference);
        }
        for (Submitted s : requests.values())
            if (s.fate == Fate.ACCEPTED)
                throw new SimulationFailure("r" + s.request.id() + " was accepted by instance " + s.request.instance()
                        + " and never completed");
    }

    long canonicalLength() {
        return canonical.size();
    }

    Map<Fate, Integer> fates() {
        Map<Fate, Integer> count = new TreeMap<>();
        for (Fate f : Fate.values()) count.put(f, 0);
        for (Submitted s : requests.values()) count.merge(s.fate, 1, Integer::sum);
        return count;
    }
}
