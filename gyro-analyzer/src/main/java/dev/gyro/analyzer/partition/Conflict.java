package dev.gyro.analyzer.partition;

import dev.gyro.analyzer.model.AnalyzedTransaction;
import dev.gyro.analyzer.model.Entry;

/**
 * A possible conflict found by Algorithm 2 (lines 3-8): a request of {@code writer} writes a row that a
 * request of {@code other} reads ({@link Kind#READ_WRITE}: {@code other} may read from {@code writer}) or
 * also writes ({@link Kind#WRITE_WRITE}), when {@code clause} holds. The writer is side 0 of the clause.
 */
public record Conflict(AnalyzedTransaction writer, AnalyzedTransaction other, Kind kind, Entry write,
                       Entry access, Clause clause) {

    public enum Kind { READ_WRITE, WRITE_WRITE }

    /** Whether the two requests are of the same transaction (t = t' in Algorithm 2). */
    public boolean self() {
        return writer == other;
    }

    /** The other side's name in renderings: a second request of the same transaction gets a prime. */
    public String otherName() {
        return self() ? other.name() + "'" : other.name();
    }

    public String table() {
        return write.table().equals(Entry.ANY_TABLE) ? access.table() : write.table();
    }

    public String renderClause() {
        return clause.render(table().equals(Entry.ANY_TABLE) ? "any table" : table(), writer.name(), otherName());
    }
}
