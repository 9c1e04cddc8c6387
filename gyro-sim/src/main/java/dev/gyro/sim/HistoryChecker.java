package dev.gyro.sim;

import dev.gyro.protocol.Ring;
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
 *   <li>Convergence: at the end every database of a member of the final ring holds the whole canonical sequence and
 *       equals the reference; instances taken out of the ring are not asked to.</li>
 *   <li>Ring changes (docs/decisions/44-ring-changes.md): the ring is part of the canonical sequence, so the ring an
 *       instance holds after gsn g, in its database or its Conveyor Belt, is the ring the canonical gsns 1..g made; each
 *       change follows the one before (epoch + 1) and is made by a member; only members make gsns; a new member starts
 *       from a copy of a database that holds the gsn that made it one, and equal to the reference there.</li>
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
    // The ring from each gsn on that changed it, and the first ring at gsn 0.
    private final TreeMap<Long, Ring> rings = new TreeMap<>();

    HistoryChecker(int instances) {
        this(instances, instances);
    }

    /** {@code instances} ids, of which {@code members} (0 .. members - 1) make the first ring; the rest may join. */
    HistoryChecker(int instances, int members) {
        lastCommitted = new long[instances];
        rings.put(0L, Ring.initial(members));
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
        Ring ring = ringAt(canonical.size());
        if (!ring.contains(instance))
            throw new SimulationFailure("instance " + instance + " executed r" + requestId + " as gsn " + update.gsn()
                    + " but is no member of the ring " + describe(ring) + " after gsn " + canonical.size());
        if (update.ring() != null && update.ring().epoch() != ring.epoch() + 1)
            throw new SimulationFailure("gsn " + update.gsn() + " at " + instance + " changes the ring to "
                    + describe(update.ring()) + " but the ring after gsn " + canonical.size() + " is " + describe(ring));
        // Serial execution in gsn order must write exactly what the origin wrote (the ring's row is Gyro's, not the
        // application's).
        List<RowChange> expected = requests.get(requestId).request.execute(reference);
        if (!expected.equals(GlobalRequest.applicationWrites(update.changes())))
            throw new SimulationFailure("not serializable: r" + requestId + " committed as gsn " + update.gsn() + " at "
                    + instance + " wrote " + update.changes() + " but executed after gsns 1.." + canonical.size()
                    + " it writes " + expected);
        GlobalRequest.apply(update.changes(), reference);
        canonical.add(update);
        if (update.ring() != null) rings.put(update.gsn(), update.ring());
        commit(instance, update);
    }

    // ---------------------------------------------------------------- ring changes (decision 44)

    /** The ring the canonical gsns 1..{@code gsn} made. */
    Ring ringAt(long gsn) {
        return rings.floorEntry(gsn).getValue();
    }

    /** The ring after the whole canonical sequence. */
    Ring finalRing() {
        return ringAt(canonical.size());
    }

    /**
     * {@code instance}'s {@code whose} (its database, its Conveyor Belt) holds {@code ring} (null: the first one) after
     * gsn {@code gsn}: it must be the one the canonical sequence made by then, so every instance switches at the same gsn.
     */
    void holdsRing(int instance, String whose, long gsn, Ring ring) {
        if (gsn > canonical.size()) return; // a gsn nobody made: the commits' own checks tell
        Ring expected = ringAt(gsn);
        Ring held = ring == null ? rings.get(0L) : ring;
        if (!held.equals(expected))
            throw new SimulationFailure("instance " + instance + "'s " + whose + " holds the ring " + describe(held)
                    + " after gsn " + gsn + ", but gsns 1.." + gsn + " made the ring " + describe(expected));
    }

    /**
     * {@code instance} joins the ring on {@code copy}, a copy of instance {@code from}'s database: it must hold the gsn
     * that made {@code instance} a member, equal the serial execution up to its last gsn, and record that gsn's ring.
     * From there on its commits follow on from the copy's last gsn.
     */
    void joined(int instance, int from, SimDatabase copy) {
        long at = copy.lastGsn();
        Long madeMember = null;
        for (Map.Entry<Long, Ring> e : rings.entrySet())
            if (e.getValue().contains(instance)) {
                madeMember = e.getKey();
                break;
            }
        if (madeMember == null || madeMember > at)
            throw new SimulationFailure("instance " + instance + " joins on a copy of instance " + from
                    + "'s database at gsn " + at + ", before gsn " + madeMember + " made it a member of the ring");
        if (lastCommitted[instance] != 0)
            throw new SimulationFailure("instance " + instance + " joins again, after it committed gsns 1.."
                    + lastCommitted[instance]);
        TreeMap<Long, Long> then = new TreeMap<>();
        for (int g = 0; g < at; g++) GlobalRequest.apply(canonical.get(g).changes(), then);
        if (!copy.rows().equals(then))
            throw new SimulationFailure("instance " + instance + " joins on a copy of instance " + from
                    + "'s database at gsn " + at + " whose table " + copy.rows() + " differs from the serial execution "
                    + then);
        holdsRing(instance, "copied database", at, copy.ring());
        lastCommitted[instance] = at;
    }

    private static String describe(Ring r) {
        return "epoch " + r.epoch() + " " + r.members() + " (from hop " + r.hop() + " at " + r.holder() + ")";
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
     * After the liveness phase: every member of the final ring has committed the whole canonical sequence, its
     * database equals the reference and records the final ring, the protocol's own view agrees, and nothing accepted
     * is left undone. {@code databases} are those of the instances running at the end, {@code protocolLastGsn} by
     * instance id; an instance taken out of the ring is not asked to converge.
     */
    void checkConverged(List<SimDatabase> databases, long[] protocolLastGsn) {
        long last = canonical.size();
        Ring ring = finalRing();
        for (int member : ring.members())
            if (databases.stream().noneMatch(d -> d.instance == member))
                throw new SimulationFailure("instance " + member + ", a member of the final ring " + describe(ring)
                        + ", is not running");
        for (SimDatabase db : databases) {
            int i = db.instance;
            if (!ring.contains(i)) continue;
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
            holdsRing(i, "database", db.lastGsn(), db.ring());
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
