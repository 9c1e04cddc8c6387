package dev.gyro.analyzer.model;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A transaction of the application with its read set and write set (paper, Section VI), as extracted
 * from the source code, over all its SQL statements regardless of the execution path.
 *
 * @param name        the transaction's name ({@code addItem})
 * @param origin      where the front-end found it and how ("Gyro transaction class", "servlet doGet"...)
 * @param className   the declaring class's simple name
 * @param source      the method that runs the transaction
 * @param parameters  the input parameters, in order: the candidates for partitioning parameters
 * @param readSet     entries read
 * @param writeSet    entries written
 * @param notes       what the analysis could not follow (widened conditions, free values, computed SQL)
 * @param valueCounts how many distinct values an input can take, where known (partitioning objective)
 * @param method      the application's own method that is the transaction, for an unmodified application (null for a
 *                    transaction of Gyro's API): the classification file names it (docs/decisions/34-attaching.md)
 */
public record AnalyzedTransaction(String name, String origin, String className, SourceRef source,
                                  List<String> parameters, List<Entry> readSet, List<Entry> writeSet,
                                  List<String> notes, Map<String, Integer> valueCounts,
                                  dev.gyro.app.Classification.Method method) {
    public AnalyzedTransaction {
        Objects.requireNonNull(name, "name");
        parameters = List.copyOf(parameters);
        readSet = List.copyOf(readSet);
        writeSet = List.copyOf(writeSet);
        notes = List.copyOf(notes);
        valueCounts = Map.copyOf(valueCounts);
    }

    public AnalyzedTransaction(String name, String origin, String className, SourceRef source, List<String> parameters,
                               List<Entry> readSet, List<Entry> writeSet, List<String> notes) {
        this(name, origin, className, source, parameters, readSet, writeSet, notes, Map.of(), null);
    }

    /** A read-only transaction writes nothing (paper, Section VII-A: Table I's read-only column). */
    public boolean readOnly() {
        return writeSet.isEmpty();
    }
}
