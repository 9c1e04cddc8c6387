package dev.gyro.analyzer;

import dev.gyro.analyzer.model.AnalyzedTransaction;
import dev.gyro.analyzer.model.Diagnostic;
import dev.gyro.analyzer.partition.Classification;
import dev.gyro.analyzer.partition.Conflict;
import dev.gyro.analyzer.partition.PartitionedTables;

import java.util.List;
import java.util.Optional;

/**
 * Everything one analysis produced: the transactions with their read and write sets, the conflicts,
 * the classification, and the problems found in the input.
 *
 * @param transactions    the transactions found, with read and write sets (Section VI)
 * @param conflicts       the conflicts between them (Algorithm 2, lines 1-10)
 * @param classifications one per transaction, in the same order (Definition 1)
 * @param search          how the partitioning was searched (exhaustive or local search)
 * @param cost            Algorithm 2's cost of the chosen single-key partitioning
 * @param diagnostics     problems in the input, by file and line
 * @param javaFiles       how many Java files were parsed
 * @param partitionedTables which rows belong to a bucket, derived from the classification, or why that cannot be said
 * @param spellings       how the application spells tables and columns, by upper-case name ({@code T}, {@code T.C})
 */
public record AnalysisResult(List<AnalyzedTransaction> transactions, List<Conflict> conflicts,
                             List<Classification> classifications, String search, double cost,
                             List<Diagnostic> diagnostics, int javaFiles, PartitionedTables partitionedTables,
                             java.util.Map<String, String> spellings) {
    public AnalysisResult {
        transactions = List.copyOf(transactions);
        conflicts = List.copyOf(conflicts);
        classifications = List.copyOf(classifications);
        diagnostics = List.copyOf(diagnostics);
        java.util.Objects.requireNonNull(partitionedTables, "partitionedTables");
        spellings = java.util.Map.copyOf(spellings);
    }

    /**
     * The partitionedTables section a given classification (a hand-kept file) should have: {@link PartitionedTables}'s
     * rule applied to its classes and partitioning parameters, with the write sets this analysis found. A transaction
     * the file makes local or local-or-global that the analysis did not find cannot be vouched for.
     */
    public PartitionedTables partitionedTables(dev.gyro.app.Classification given) {
        List<Classification> classes = new java.util.ArrayList<>();
        List<String> unknown = new java.util.ArrayList<>();
        for (dev.gyro.app.Classification.Rule rule : given.rules()) {
            Optional<AnalyzedTransaction> t = transactions.stream().filter(x -> x.name().equals(rule.name())).findFirst();
            if (t.isPresent()) {
                classes.add(new Classification(t.get(), rule.kind(), rule.partitionBy(), rule.reason()));
            } else if (rule.kind() != dev.gyro.app.Kind.GLOBAL && !rule.readOnly()) {
                unknown.add(rule.name() + " is " + rule.kind().label() + " and writes, but the analysis did not find it:"
                        + " what it writes is not known");
            }
        }
        PartitionedTables derived = PartitionedTables.derive(classes, spellings);
        if (unknown.isEmpty()) {
            return derived;
        }
        unknown.addAll(derived.problems());
        return new PartitionedTables(java.util.Map.of(), java.util.Map.of(), unknown);
    }

    public Optional<Classification> classification(String transaction) {
        return classifications.stream().filter(c -> c.name().equals(transaction)).findFirst();
    }

    /** The classification as the runtime reads it: the file {@code gyro analyze --json} writes. */
    public dev.gyro.app.Classification classificationFile() {
        List<dev.gyro.app.Classification.Rule> rules = new java.util.ArrayList<>();
        for (Classification c : classifications)
            rules.add(new dev.gyro.app.Classification.Rule(c.name(), c.kind(), c.readOnly(), c.partitionBy(),
                    c.reason(), c.transaction().method()));
        return new dev.gyro.app.Classification(rules, partitionedTables.section());
    }
}
