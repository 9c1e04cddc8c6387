package dev.gyro.analyzer.partition;

import dev.gyro.app.Kind;

import dev.gyro.analyzer.model.AnalyzedTransaction;

import java.util.List;

/**
 * The classification of one transaction: its class (Definition 1), whether it is read-only, its
 * partitioning parameter(s) (home key first), and the reason.
 */
public record Classification(AnalyzedTransaction transaction, Kind kind, List<String> partitionBy,
                             String reason) {
    public Classification {
        partitionBy = List.copyOf(partitionBy);
    }

    public String name() {
        return transaction.name();
    }

    public boolean readOnly() {
        return transaction.readOnly();
    }
}
