package dev.gyro.analyzer.partition;

import dev.gyro.app.Kind;

import dev.gyro.analyzer.model.AnalyzedTransaction;
import dev.gyro.analyzer.model.Entry;
import dev.gyro.analyzer.model.Equality;
import dev.gyro.analyzer.model.Value;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which rows belong to a bucket, for moving a bucket with its data: the {@code partitionedTables} section of the
 * classification file ({@link dev.gyro.app.Classification#partitionedTables()}), each table with the column that
 * holds its rows' partitioning value.
 *
 * <p>The rule. Every transaction the classification makes local or local-or-global and that writes is considered;
 * its home key is its first partitioning parameter (the one its requests route by, Definition 1). Each entry of its
 * write set (INSERT, UPDATE, DELETE, UPSERT: Section VI) names the columns its condition binds to the home key: an
 * INSERT's columns whose value is that parameter, an UPDATE's or DELETE's WHERE equalities {@code COL = param}, the
 * same equalities the conflict conditions of Algorithm 2 are made of. A table gets a column when every write entry
 * of every such transaction on that table binds that column (names compared in upper case, written as the schema
 * spells them). When some write binds no column to its home key, a local transaction has no partitioning parameter
 * or writes SQL the analysis could not read, or two writes of a table bind different columns, there is no section
 * at all ({@link #problems} says why, naming the transaction and the table): a bucket's rows could not be told
 * apart, and a move that left some behind would lose the partition's state. Tables written only by global
 * transactions are not listed: a global request's updates reach every instance, so every instance already holds
 * their rows.
 *
 * <p>With the analyzer's own classification a write that binds no column to the home key does not occur: two
 * requests of a local transaction may write the same row (Algorithm 2 pairs a transaction with itself), so the
 * conflict must force their home keys equal, which only a column bound to the home key does. It does occur with a
 * hand-kept classification ({@code AnalysisResult.partitionedTables(given)}), and different columns occur with
 * either when the writes' rows are told apart otherwise (by a constant).
 *
 * @param tables   table to column, upper case, in the order the transactions first write them (empty when problems)
 * @param spelled  the same as the application's schema or SQL spells them (empty when problems)
 * @param problems why buckets cannot be moved; empty when they can
 */
public record PartitionedTables(Map<String, String> tables, Map<String, String> spelled, List<String> problems) {
    public PartitionedTables {
        tables = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(tables));
        spelled = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(spelled));
        problems = List.copyOf(problems);
    }

    /** The section as written to the classification file: empty (left out) when buckets cannot be moved. */
    public Map<String, String> section() {
        return problems.isEmpty() ? spelled : Map.of();
    }

    /** What a local writer's writes bind to its home key, per table, as far as they agree. */
    private static final class Binding {
        /** The columns every write so far binds to its transaction's home key, in the first write's order. */
        final Set<String> common = new LinkedHashSet<>();
        /** Each write so far: its transaction, home key and the columns it binds. */
        final List<String[]> writers = new ArrayList<>();
        final List<Set<String>> bound = new ArrayList<>();
        boolean broken;
    }

    /**
     * Applies the rule to a classification: the analyzer's, or a hand-kept one with the analyzed write sets.
     *
     * @param spellings how the application spells tables and columns, by upper-case name ({@code T}, {@code T.C});
     *                  a name not listed is written in upper case
     */
    public static PartitionedTables derive(List<Classification> classifications, Map<String, String> spellings) {
        Spelling spelling = (table, column) -> column == null ? spellings.getOrDefault(table, table)
                : spellings.getOrDefault(table + "." + column, column);
        Map<String, Binding> byTable = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        boolean anyWriter = false;
        for (Classification c : classifications) {
            if (c.kind() == Kind.GLOBAL || c.readOnly()) {
                continue;
            }
            anyWriter = true;
            AnalyzedTransaction t = c.transaction();
            String home = c.partitionBy().isEmpty() ? null : c.partitionBy().get(0);
            for (Entry w : t.writeSet()) {
                if (w.table().equals(Entry.ANY_TABLE)) {
                    add(problems, t.name() + " (" + c.kind().label() + ") may write any table (SQL the analysis "
                            + "could not read, " + w.source() + ")");
                    continue;
                }
                String table = spelling.apply(w.table(), null);
                Binding b = byTable.computeIfAbsent(w.table(), k -> new Binding());
                if (b.broken) {
                    continue;
                }
                if (home == null) {
                    b.broken = true;
                    add(problems, t.name() + " writes " + table + " but has no partitioning parameter");
                    continue;
                }
                Set<String> columns = new LinkedHashSet<>();
                for (Equality eq : w.condition().equalities()) {
                    if (eq.value() instanceof Value.Param p && p.name().equals(home)) {
                        columns.add(eq.column());
                    }
                }
                if (columns.isEmpty()) {
                    b.broken = true;
                    add(problems, t.name() + " writes " + table + " without a column equal to its partitioning "
                            + "parameter " + home + " (" + w.source() + ")");
                    continue;
                }
                if (b.writers.isEmpty()) {
                    b.common.addAll(columns);
                } else {
                    b.common.retainAll(columns);
                }
                b.writers.add(new String[] {t.name(), home});
                b.bound.add(columns);
                if (b.common.isEmpty()) {
                    b.broken = true;
                    int other = 0;
                    for (int i = 0; i < b.bound.size() - 1; i++) {
                        if (java.util.Collections.disjoint(b.bound.get(i), columns)) {
                            other = i;
                            break;
                        }
                    }
                    String[] first = b.writers.get(other);
                    add(problems, first[0] + " writes " + table + " with " + spelled(spelling, w.table(),
                            b.bound.get(other)) + " equal to its partitioning parameter " + first[1] + ", " + t.name()
                            + " with " + spelled(spelling, w.table(), columns) + " equal to " + home
                            + ": no one column of " + table + " holds its rows' partitioning value");
                }
            }
        }
        if (!anyWriter) {
            problems.add("no local or local-or-global transaction writes, so no table is partitioned");
        }
        if (!problems.isEmpty()) {
            return new PartitionedTables(Map.of(), Map.of(), problems);
        }
        Map<String, String> tables = new LinkedHashMap<>();
        Map<String, String> spelled = new LinkedHashMap<>();
        byTable.forEach((table, b) -> {
            String column = b.common.iterator().next();
            tables.put(table, column);
            spelled.put(spelling.apply(table, null), spelling.apply(table, column));
        });
        return new PartitionedTables(tables, spelled, List.of());
    }

    private static void add(List<String> problems, String problem) {
        if (!problems.contains(problem)) {
            problems.add(problem);
        }
    }

    private interface Spelling {
        String apply(String table, String column);
    }

    private static String spelled(Spelling spelling, String table, Set<String> columns) {
        List<String> out = new ArrayList<>();
        for (String c : columns) {
            out.add(spelling.apply(table, c));
        }
        return String.join(" and ", out);
    }
}
