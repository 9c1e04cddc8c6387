package dev.gyro.analyzer;

import dev.gyro.analyzer.model.AnalyzedTransaction;
import dev.gyro.analyzer.model.Entry;
import dev.gyro.analyzer.partition.Classification;
import dev.gyro.analyzer.partition.PartitionedTables;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** The text report of {@code gyro analyze}: Table I of the paper, then one block per transaction. */
public final class Report {
    private Report() {
    }

    public static void print(AnalysisResult result, String application, boolean sets, PrintWriter out) {
        dev.gyro.app.Classification.Summary s = result.classificationFile().summary();
        out.printf("Request classification (paper, Table I): %d transaction%s in %d Java file%s; partitioning by %s%n%n",
                s.total(), s.total() == 1 ? "" : "s", result.javaFiles(), result.javaFiles() == 1 ? "" : "s",
                result.search());
        List<String[]> table = new ArrayList<>();
        table.add(new String[] {"Application", "L", "G", "L/G", "Read-only", "Total"});
        table.add(new String[] {application, String.valueOf(s.local()), String.valueOf(s.global()),
                String.valueOf(s.localOrGlobal()), String.valueOf(s.readOnly()), String.valueOf(s.total())});
        printTable(table, out, "  ");
        out.println();

        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"transaction", "class", "partitioned by", "read-only", "source"});
        for (Classification c : result.classifications()) {
            rows.add(new String[] {c.name(), c.kind().label(),
                    c.partitionBy().isEmpty() ? "-" : String.join(", ", c.partitionBy()),
                    c.readOnly() ? "yes" : "no", c.transaction().source().toString()});
        }
        printTable(rows, out, "  ");
        out.println();
        for (Classification c : result.classifications()) {
            out.printf("%s (%s): %s%n", c.name(), c.kind().label(), c.reason());
            if (sets) {
                printSets(c.transaction(), out);
            }
        }
        printBucketMoves(result.partitionedTables(), out);
    }

    /** The classification file's partitionedTables section, or why it has none (PartitionedTables). */
    static void printBucketMoves(PartitionedTables tables, PrintWriter out) {
        out.println();
        for (String problem : tables.problems()) {
            out.printf("bucket moves: not possible: %s%n", problem);
        }
        tables.section().forEach((table, column) ->
                out.printf("bucket moves: rows of %s belong to the bucket of %s%n", table, column));
    }

    private static void printSets(AnalyzedTransaction t, PrintWriter out) {
        out.printf("    found as %s; input parameters: %s%n", t.origin(),
                t.parameters().isEmpty() ? "(none)" : String.join(", ", t.parameters()));
        for (Entry e : t.readSet()) {
            out.printf("    read  %s%n", e);
        }
        for (Entry e : t.writeSet()) {
            out.printf("    write %s%n", e);
        }
        for (String note : t.notes()) {
            out.printf("    note: %s%n", note);
        }
    }

    private static void printTable(List<String[]> rows, PrintWriter out, String indent) {
        int columns = rows.get(0).length;
        int[] width = new int[columns];
        for (String[] row : rows) {
            for (int i = 0; i < columns; i++) {
                width[i] = Math.max(width[i], row[i].length());
            }
        }
        for (String[] row : rows) {
            StringBuilder sb = new StringBuilder(indent);
            for (int i = 0; i < columns; i++) {
                sb.append(row[i]);
                if (i < columns - 1) {
                    sb.append(" ".repeat(width[i] - row[i].length() + 2));
                }
            }
            out.println(sb.toString().stripTrailing());
        }
    }
}
