package dev.gyro.check;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The dynamic check of Definition 1 (paper Section IV): a request is local only if no request of another
 * partition reads from it. Given what every request of a run read and wrote, it reports each request that read a
 * row written by a LOCAL request of another partition, written before the reader finished. Such a read is
 * exactly what a wrong classification causes: the local write exists on one instance only, so the reader, served
 * by its own partition's instance, may have seen another value than a serial execution would give it.
 *
 * <p>It stands apart from the code it checks, so a fault there cannot hide itself: it sees only the recorded accesses.
 */
public final class ReadFromChecker {

    private ReadFromChecker() {}

    /** One reader that read from a local writer of another partition. */
    public record Violation(Access reader, RowRef row, Access writer) {
        @Override
        public String toString() {
            return reader.describe() + " (partition " + reader.partition() + ") read " + row + ", written by "
                    + writer.describe() + " (partition " + writer.partition() + ")";
        }
    }

    /**
     * Whether two requests are of one partition: they share a partitioning value. For requests partitioned by one
     * key this is equality; a local-or-global request ran locally because both its keys route to one instance
     * (Section VII-A), so a reader routed by either of its keys meets its writes. (Values are compared without
     * their parameter's name, so an item and a user with the same number count as one partition: a collision can
     * hide a violation, never invent one.)
     */
    static boolean sharePartition(Access a, Access b) {
        for (var v : a.partition()) if (b.partition().contains(v)) return true;
        return false;
    }

    public static List<Violation> check(List<Access> accesses) {
        Map<String, List<Access>> localWritersByTable = new HashMap<>();
        Map<RowRef, List<Access>> writersByRow = new HashMap<>();
        for (Access a : accesses) {
            for (RowRef w : a.writes()) {
                if (w.key() != null) writersByRow.computeIfAbsent(row(w), r -> new ArrayList<>()).add(a);
                // a global request's writes reach every instance in token order: only local ones can be read unseen
                if (!a.global()) localWritersByTable.computeIfAbsent(w.table(), t -> new ArrayList<>()).add(a);
            }
        }
        List<Violation> violations = new ArrayList<>();
        for (Access reader : accesses) {
            for (RowRef read : reader.reads()) {
                for (Access writer : localWritersByTable.getOrDefault(read.table(), List.of())) {
                    if (writer == reader || sharePartition(reader, writer)) continue;
                    if (writer.startNanos() > reader.endNanos()) continue; // wrote after the reader was done
                    for (RowRef w : writer.writes()) {
                        if (read.covers(w) && !overwritten(w, writer, reader, writersByRow)) {
                            violations.add(new Violation(reader, w, writer));
                            break;
                        }
                    }
                }
            }
        }
        return violations;
    }

    /** A row by table and key, whatever columns an access names. */
    private static RowRef row(RowRef r) {
        return new RowRef(r.table(), r.key());
    }

    /**
     * Whether {@code w}'s row was written anew where the reader ran, after {@code writer} was done and before
     * {@code reader} was: by a global request (its writes reach every instance) or by a local request of the reader's
     * own partition. The key alone cannot tell which of the row's versions the reader read. (RUBiS reuses a bid's key
     * once the bid is retracted: a reader of the user whose bid took the key next is not a reader of the retracted
     * bid.) Like a collision of partitioning values, this can hide a violation, never invent one.
     */
    private static boolean overwritten(RowRef w, Access writer, Access reader, Map<RowRef, List<Access>> writers) {
        if (w.key() == null) return false;
        for (Access g : writers.getOrDefault(row(w), List.of())) {
            if (g == reader || g == writer || !(g.global() || sharePartition(g, reader))) continue;
            if (g.startNanos() > writer.endNanos() && g.endNanos() < reader.endNanos()) return true;
        }
        return false;
    }
}
