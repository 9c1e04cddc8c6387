package dev.gyro.analyzer.partition;

import dev.gyro.analyzer.model.AnalyzedTransaction;
import dev.gyro.analyzer.model.Entry;

import java.util.ArrayList;
import java.util.List;

/**
 * Conflict detection, the first phase of Algorithm 2 (lines 1-10): for every ordered pair of
 * transactions (t, t'), including t = t', every entry w of t's write set against every entry of t''s read
 * set (t' may read from t) and write set (both write), on overlapping attributes of the same table; the
 * conjunction of the two conditions is kept when it is satisfiable.
 *
 * <p>Ordered pairs cover the paper's unordered {@code C_{t,t'}}: its lines 3-4 are the pair (t', t) here,
 * lines 5-6 and 7-8 the pair (t, t'). Keeping the direction tells who may read from whom, which is what
 * Definition 1 asks.
 *
 * <p>One pair of writes is not a conflict: a write that only creates a row (a plain INSERT) and one that
 * only changes columns of rows that exist, never their existence (an UPDATE of no key column). Whatever
 * their order, the INSERT succeeds exactly when the row did not exist, which the UPDATE does not change;
 * the other way round, the UPDATE reads the INSERT's new row, a read-write conflict kept on the INSERT's
 * side. So neither order lets the INSERT's request read from the UPDATE's.
 */
public final class ConflictDetector {
    private ConflictDetector() {
    }

    public static List<Conflict> detect(List<AnalyzedTransaction> transactions) {
        List<Conflict> out = new ArrayList<>();
        for (AnalyzedTransaction t : transactions) {
            for (AnalyzedTransaction other : transactions) {
                for (Entry w : t.writeSet()) {
                    for (Entry r : other.readSet()) {
                        add(out, t, other, Conflict.Kind.READ_WRITE, w, r);
                    }
                    for (Entry w2 : other.writeSet()) {
                        add(out, t, other, Conflict.Kind.WRITE_WRITE, w, w2);
                    }
                }
            }
        }
        return out;
    }

    private static void add(List<Conflict> out, AnalyzedTransaction writer, AnalyzedTransaction other,
                            Conflict.Kind kind, Entry write, Entry access) {
        if (!write.overlaps(access)) {
            return;
        }
        if (kind == Conflict.Kind.WRITE_WRITE && (createsAndChanges(write, access) || createsAndChanges(access, write))) {
            return;
        }
        Clause clause = Clause.of(write, access);
        if (clause.satisfiable()) {
            out.add(new Conflict(writer, other, kind, write, access, clause));
        }
    }

    private static boolean createsAndChanges(Entry a, Entry b) {
        return a.effect() == Entry.Effect.CREATE && b.effect() == Entry.Effect.CHANGE && !b.touchesExistence();
    }
}
