package dev.gyro.analyzer.partition;

import dev.gyro.app.Kind;

import dev.gyro.analyzer.model.AnalyzedTransaction;
import dev.gyro.analyzer.model.Entry;
import dev.gyro.analyzer.model.Equality;
import dev.gyro.analyzer.model.Value;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The partitioning optimization of Algorithm 2 (lines 11-20) and the classification of Definition 1.
 *
 * <h2>Stage 1: single partitioning parameters (Algorithm 2)</h2>
 * Each transaction gets one of its input parameters (none if it has no input). The cost of a
 * partitioning P is the sum, over the conflicting pairs {t, t'} (t = t' included) that P does not make
 * local, of weight(t) + weight(t') (line 20); a pair is local when every clause of its conflict condition,
 * in both directions, forces P[t] = P[t'] (line 17). Weights are the workload mix's frequencies, 1 when
 * no mix is given. The search is exhaustive (depth-first, branch and bound on a lower bound of the pairs
 * not yet decided, exact) when the space has at most {@value #EXHAUSTIVE_LIMIT} partitionings; above that
 * it is iterated best response: start every transaction at its most-bound parameter, then repeatedly give
 * each transaction, in turn, the parameter that minimizes the cost given the others, until no change
 * lowers the cost (a local optimum, deterministic, not guaranteed global). Ties go to the parameter bound
 * most often in the transaction's conditions, then to the earlier parameter. The exhaustive search keeps up to
 * {@value #MAX_TIES} partitionings of equal optimal cost (the best-response search, those one choice away from its
 * optimum that cost no more, the rest searched again around that choice); after stage 2 the one with the lowest weighted count of
 * non-local transactions is kept (the first on a tie): the cost of line 20 cannot see that a pair left non-local
 * by one choice is made local-or-global by stage 2 and by another is not.
 *
 * <h2>Classification (Definition 1)</h2>
 * A request is local iff no request of another partition reads from it. A transaction that writes is
 * global unless every conflict on what it writes (another request reads or writes the row) forces one of
 * its partitioning parameters to equal the other transaction's home key: then both requests route to the
 * same instance. Read-only transactions are local. A request's home key is its first partitioning
 * parameter: a local-or-global request that turns out global runs at its home key's instance, so a
 * reader's other key cannot be relied upon.
 *
 * <h2>Stage 2: two keys (local-or-global)</h2>
 * Each transaction still global that has two or more parameters tries every ordered pair (home, second):
 * with both as keys it is local exactly when both route to the same instance. A pair is kept when it
 * makes the transaction local-or-global and lowers the weighted count of non-local transactions (global
 * counts 1, local-or-global 1/2), so that no other transaction becomes global for it. A local-or-global
 * transaction whose conflicts its home key alone localizes is made plainly local.
 */
public final class Partitioner {
    public static final long EXHAUSTIVE_LIMIT = 1_000_000L;

    /** The outcome: one classification per transaction, the chosen keys, and how they were found. */
    public record Result(List<Classification> classifications, Map<String, List<String>> partitionBy,
                         String search, double cost) {
    }

    private final List<AnalyzedTransaction> txs;
    private final int n;
    private final double[] weight;
    private final List<List<String>> choices = new ArrayList<>();
    /** Distinct sets of implied parameter equalities of the clauses, per (writer, other). */
    private final List<Set<Clause.ParamPair>>[][] clauseSets;
    private final List<Conflict>[][] conflicts;

    @SuppressWarnings("unchecked")
    private Partitioner(List<AnalyzedTransaction> txs, List<Conflict> all, Map<String, Double> weights) {
        this.txs = txs;
        this.n = txs.size();
        this.weight = new double[n];
        Map<AnalyzedTransaction, Integer> index = new IdentityHashMap<>();
        for (int i = 0; i < n; i++) {
            index.put(txs.get(i), i);
            weight[i] = weights.getOrDefault(txs.get(i).name(), 1.0);
            choices.add(preferenceOrder(txs.get(i)));
        }
        clauseSets = new List[n][n];
        conflicts = new List[n][n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                clauseSets[i][j] = new ArrayList<>();
                conflicts[i][j] = new ArrayList<>();
            }
        }
        for (Conflict c : all) {
            int i = index.get(c.writer());
            int j = index.get(c.other());
            conflicts[i][j].add(c);
            Set<Clause.ParamPair> s = c.clause().impliedEqualities();
            if (!clauseSets[i][j].contains(s)) {
                clauseSets[i][j].add(s);
            }
        }
    }

    public static Result run(List<AnalyzedTransaction> transactions, List<Conflict> conflicts, Map<String, Double> weights) {
        return run(transactions, conflicts, weights, 0);
    }

    /**
     * With {@code instances} > 0 the objective also counts load that a key cannot spread: a transaction
     * partitioned by a key that takes v distinct values (known from its type or given) keeps a share
     * 1 - v/instances of its weight off the other instances, added to the cost of Algorithm 2.
     */
    public static Result run(List<AnalyzedTransaction> transactions, List<Conflict> conflicts, Map<String, Double> weights,
                             int instances) {
        Partitioner p = new Partitioner(transactions, conflicts, weights);
        p.instances = instances;
        return p.run();
    }

    private int instances;

    /** The load of transaction i that key {@code k} cannot spread over the instances (0 when unknown). */
    private double spreadCost(int i, String k) {
        Integer values = k == null ? null : txs.get(i).valueCounts().get(k);
        if (instances <= 0 || values == null || values >= instances) {
            return 0;
        }
        return weight[i] * (1.0 - (double) values / instances);
    }

    /** Parameters ordered by how often the transaction's conditions bind them, then as declared. */
    private static List<String> preferenceOrder(AnalyzedTransaction t) {
        Map<String, Integer> bound = new HashMap<>();
        for (List<Entry> set : List.of(t.readSet(), t.writeSet())) {
            for (Entry e : set) {
                for (Equality eq : e.condition().equalities()) {
                    if (eq.value() instanceof Value.Param p) {
                        bound.merge(p.name(), 1, Integer::sum);
                    }
                }
            }
        }
        List<String> params = new ArrayList<>(t.parameters());
        List<String> sorted = new ArrayList<>(params);
        sorted.sort(Comparator.comparingInt((String p) -> -bound.getOrDefault(p, 0)).thenComparingInt(params::indexOf));
        if (sorted.isEmpty()) {
            sorted.add(null);
        }
        return sorted;
    }

    private Result run() {
        double[] cost = new double[1];
        List<int[]> ties = new ArrayList<>();
        String search = optimizeSingleKeys(ties, cost);
        // Tied single-key partitionings are told apart by the final measure, after the two-key stage: the first
        // tie is kept unless another ends with fewer (weighted) non-local transactions.
        String[][] keys = null;
        double best = Double.MAX_VALUE;
        int winner = 0;
        for (int t = 0; t < ties.size(); t++) {
            String[][] candidate = singleKeys(ties.get(t));
            doubleKeys(candidate);
            double score = score(classify(candidate));
            if (score < best - 1e-12) {
                best = score;
                keys = candidate;
                winner = t;
            }
        }
        if (winner > 0) {
            search += String.format(java.util.Locale.ROOT, "; of %d tied partitionings, tie %d kept: %.3g non-local "
                    + "transactions after the local-or-global stage, the first tie's %.3g", ties.size(), winner + 1, best,
                    scoreOf(ties.get(0)));
        }
        Kind[] classes = classify(keys);
        List<Classification> out = new ArrayList<>();
        Map<String, List<String>> partitionBy = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            List<String> k = Arrays.asList(keys[i]);
            partitionBy.put(txs.get(i).name(), k);
            out.add(new Classification(txs.get(i), classes[i], k, reason(i, keys, classes)));
        }
        return new Result(out, partitionBy, search, cost[0]);
    }

    // ------------------------------------------------------------------------------------------------
    // Stage 1: Algorithm 2's cost and search

    private boolean localized(int writer, int other, String[] writerKeys, String otherHome) {
        for (Set<Clause.ParamPair> s : clauseSets[writer][other]) {
            boolean ok = false;
            if (otherHome != null) {
                for (String a : writerKeys) {
                    if (a != null && s.contains(new Clause.ParamPair(a, otherHome))) {
                        ok = true;
                        break;
                    }
                }
            }
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /** Cost of the pair {i, j} (i may equal j) under single keys a of i and b of j: lines 13-20. */
    private double pairCost(int i, String a, int j, String b) {
        if (i == j) {
            return localized(i, i, new String[] {a}, a) ? 0 : 2 * weight[i];
        }
        boolean local = localized(i, j, new String[] {a}, b) && localized(j, i, new String[] {b}, a);
        return local ? 0 : weight[i] + weight[j];
    }

    private record Pair(int i, int j, double[][] table, double min) {
    }

    private String[][] singleKeys(int[] assignment) {
        String[][] keys = new String[n][];
        for (int i = 0; i < n; i++) {
            String k = choices.get(i).get(assignment[i]);
            keys[i] = k == null ? new String[0] : new String[] {k};
        }
        return keys;
    }

    private double scoreOf(int[] assignment) {
        String[][] keys = singleKeys(assignment);
        doubleKeys(keys);
        return score(classify(keys));
    }

    /** At most this many partitionings of equal (optimal) stage-1 cost are compared by the final measure. */
    static final int MAX_TIES = 64;

    private String optimizeSingleKeys(List<int[]> ties, double[] costOut) {
        List<Pair> pairs = new ArrayList<>();
        List<List<Pair>> byVar = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            byVar.add(new ArrayList<>());
        }
        for (int i = 0; i < n; i++) {
            for (int j = i; j < n; j++) {
                if (clauseSets[i][j].isEmpty() && clauseSets[j][i].isEmpty()) {
                    continue;
                }
                double[][] table = new double[choices.get(i).size()][choices.get(j).size()];
                double min = Double.MAX_VALUE;
                for (int a = 0; a < table.length; a++) {
                    for (int b = 0; b < table[a].length; b++) {
                        table[a][b] = i == j ? (a == b ? pairCost(i, choices.get(i).get(a), i, choices.get(i).get(a)) : Double.NaN)
                                : pairCost(i, choices.get(i).get(a), j, choices.get(j).get(b));
                        if (!Double.isNaN(table[a][b])) {
                            min = Math.min(min, table[a][b]);
                        }
                    }
                }
                Pair p = new Pair(i, j, table, min);
                pairs.add(p);
                byVar.get(i).add(p);
                if (i != j) {
                    byVar.get(j).add(p);
                }
            }
        }
        for (int i = 0; i < n; i++) {
            double[][] table = new double[choices.get(i).size()][choices.get(i).size()];
            double min = Double.MAX_VALUE;
            boolean any = false;
            for (int a = 0; a < table.length; a++) {
                for (int b = 0; b < table.length; b++) {
                    table[a][b] = a == b ? spreadCost(i, choices.get(i).get(a)) : Double.NaN;
                }
                any |= table[a][a] > 0;
                min = Math.min(min, table[a][a]);
            }
            if (any) {
                Pair p = new Pair(i, i, table, min);
                pairs.add(p);
                byVar.get(i).add(p);
            }
        }
        double space = 1;
        for (List<String> c : choices) {
            space *= c.size();
        }
        int[] best = new int[n];
        String search;
        if (space <= EXHAUSTIVE_LIMIT) {
            new BranchAndBound(pairs, byVar, best, ties).search();
            search = "exhaustive search over " + (long) space + " partitioning" + (space == 1 ? "" : "s");
        } else {
            bestResponse(byVar, best, -1);
            ties.add(best);
            localTies(pairs, byVar, best, ties);
            search = String.format(java.util.Locale.ROOT, "iterated best-response search (%.3g partitionings, "
                    + "more than %d: a local optimum)", space, EXHAUSTIVE_LIMIT);
        }
        costOut[0] = totalCost(pairs, best);
        return search;
    }

    private static double cost(Pair p, int[] assignment) {
        return p.i() == p.j() ? p.table()[assignment[p.i()]][assignment[p.i()]]
                : p.table()[assignment[p.i()]][assignment[p.j()]];
    }

    private static double totalCost(List<Pair> pairs, int[] assignment) {
        double sum = 0;
        for (Pair p : pairs) {
            sum += cost(p, assignment);
        }
        return sum;
    }

    /** Depth-first search in variable order; a pair's cost is added when its later variable is set. */
    private final class BranchAndBound {
        final List<Pair> pairs;
        final List<List<Pair>> byVar;
        final int[] best;
        /** The optimal partitionings found, in search order (at most MAX_TIES); the first is {@code best}. */
        final List<int[]> ties;
        final int[] current = new int[n];
        final double[] boundFrom = new double[n + 1];
        double bestCost = Double.MAX_VALUE;

        BranchAndBound(List<Pair> pairs, List<List<Pair>> byVar, int[] best, List<int[]> ties) {
            this.pairs = pairs;
            this.byVar = byVar;
            this.best = best;
            this.ties = ties;
            for (Pair p : pairs) {
                int later = Math.max(p.i(), p.j());
                for (int level = 0; level <= later; level++) {
                    boundFrom[level] += p.min();
                }
            }
        }

        void search() {
            dfs(0, 0);
        }

        void dfs(int v, double partial) {
            double bound = partial + boundFrom[v];
            if (bound > bestCost + 1e-9 || ties.size() >= MAX_TIES && bound >= bestCost - 1e-9) {
                return; // worse, or as good once enough ties are kept
            }
            if (v == n) {
                if (partial < bestCost - 1e-9) {
                    bestCost = partial;
                    ties.clear();
                    System.arraycopy(current, 0, best, 0, n);
                }
                ties.add(current.clone());
                return;
            }
            // a transaction in no pair (no conflict, no spread cost) changes nothing: its first parameter
            int options = byVar.get(v).isEmpty() ? Math.min(1, choices.get(v).size()) : choices.get(v).size();
            for (int c = 0; c < options; c++) {
                current[v] = c;
                double add = 0;
                for (Pair p : byVar.get(v)) {
                    int otherVar = p.i() == v ? p.j() : p.i();
                    if (otherVar <= v) {
                        add += cost(p, current);
                    }
                }
                dfs(v + 1, partial + add);
            }
        }
    }

    /**
     * The partitionings as good as the local optimum {@code best} of the best-response search that differ from it in a
     * variable's choice: each other choice of each variable, the rest searched again around it, kept when it costs no
     * more (at most {@value #MAX_TIES} in all). Like the exhaustive search's ties, the final measure tells them apart.
     */
    private void localTies(List<Pair> pairs, List<List<Pair>> byVar, int[] best, List<int[]> ties) {
        double cost = totalCost(pairs, best);
        for (int v = 0; v < n && ties.size() < MAX_TIES; v++) {
            for (int c = 0; c < choices.get(v).size() && ties.size() < MAX_TIES; c++) {
                if (c == best[v]) {
                    continue;
                }
                int[] other = best.clone();
                other[v] = c;
                bestResponse(byVar, other, v);
                if (totalCost(pairs, other) <= cost + 1e-9 && ties.stream().noneMatch(t -> Arrays.equals(t, other))) {
                    ties.add(other);
                }
            }
        }
    }

    /** Improves one variable at a time until none improves; {@code fixed} (or -1) keeps its choice. */
    private void bestResponse(List<List<Pair>> byVar, int[] assignment, int fixed) {
        boolean changed = true;
        while (changed) {
            changed = false;
            for (int v = 0; v < n; v++) {
                if (v == fixed) {
                    continue;
                }
                int original = assignment[v];
                double[] local = new double[choices.get(v).size()];
                double min = Double.MAX_VALUE;
                for (int c = 0; c < local.length; c++) {
                    assignment[v] = c;
                    for (Pair p : byVar.get(v)) {
                        local[c] += cost(p, assignment);
                    }
                    min = Math.min(min, local[c]);
                }
                int choice = original;
                if (local[original] > min + 1e-12) {
                    for (int c = 0; c < local.length; c++) {
                        if (local[c] <= min + 1e-12) {
                            choice = c;
                            break;
                        }
                    }
                    changed = true;
                }
                assignment[v] = choice;
            }
        }
    }

    // ------------------------------------------------------------------------------------------------
    // Definition 1 and stage 2

    private static String home(String[] keys) {
        return keys.length == 0 ? null : keys[0];
    }

    private Kind[] classify(String[][] keys) {
        Kind[] out = new Kind[n];
        for (int i = 0; i < n; i++) {
            out[i] = classify(i, keys);
        }
        return out;
    }

    private Kind classify(int i, String[][] keys) {
        if (txs.get(i).readOnly()) {
            return Kind.LOCAL;
        }
        for (int j = 0; j < n; j++) {
            if (!localized(i, j, keys[i], home(keys[j]))) {
                return Kind.GLOBAL;
            }
        }
        return keys[i].length >= 2 ? Kind.LOCAL_OR_GLOBAL : Kind.LOCAL;
    }

    private double score(Kind[] classes) {
        double s = 0;
        for (int i = 0; i < n; i++) {
            s += weight[i] * (classes[i] == Kind.GLOBAL ? 1 : classes[i] == Kind.LOCAL_OR_GLOBAL ? 0.5 : 0);
        }
        return s;
    }

    private void doubleKeys(String[][] keys) {
        for (int i = 0; i < n; i++) {
            List<String> params = choices.get(i);
            if (txs.get(i).readOnly() || params.size() < 2 || classify(i, keys) != Kind.GLOBAL) {
                continue;
            }
            double current = score(classify(keys));
            String[] original = keys[i];
            String[] bestKeys = null;
            double bestScore = current;
            List<String> homes = new ArrayList<>();
            if (original.length > 0) {
                homes.add(original[0]);
            }
            for (String p : params) {
                if (!homes.contains(p)) {
                    homes.add(p);
                }
            }
            for (String h : homes) {
                for (String s : params) {
                    if (s.equals(h)) {
                        continue;
                    }
                    keys[i] = new String[] {h, s};
                    Kind[] classes = classify(keys);
                    double sc = score(classes);
                    if (classes[i] == Kind.LOCAL_OR_GLOBAL && sc < bestScore - 1e-12) {
                        bestScore = sc;
                        bestKeys = keys[i];
                    }
                }
            }
            keys[i] = bestKeys != null ? bestKeys : original;
        }
        // A local-or-global transaction that one of its keys alone makes local is local.
        for (int i = 0; i < n; i++) {
            if (keys[i].length != 2) {
                continue;
            }
            double current = score(classify(keys));
            String[] original = keys[i];
            for (String k : original) {
                keys[i] = new String[] {k};
                Kind[] classes = classify(keys);
                if (classes[i] == Kind.LOCAL && score(classes) <= current + 1e-12) {
                    original = null;
                    break;
                }
            }
            if (original != null) {
                keys[i] = original;
            }
        }
    }

    // ------------------------------------------------------------------------------------------------
    // Reasons

    private String reason(int i, String[][] keys, Kind[] classes) {
        AnalyzedTransaction t = txs.get(i);
        if (t.readOnly()) {
            return "read-only: it writes nothing, so no request of another partition can read from it (Definition 1)";
        }
        List<Conflict> unlocalized = new ArrayList<>();
        Map<String, Set<String>> localByKey = new LinkedHashMap<>();
        for (int j = 0; j < n; j++) {
            for (Conflict c : conflicts[i][j]) {
                String by = localizingKey(c, keys[i], home(keys[j]));
                if (by == null) {
                    unlocalized.add(c);
                } else {
                    localByKey.computeIfAbsent(by, k -> new TreeSet<>()).add(c.other().name() + " on " + c.table());
                }
            }
        }
        if (classes[i] == Kind.GLOBAL) {
            return globalReason(i, keys, unlocalized);
        }
        if (localByKey.isEmpty()) {
            return "local: no other request reads or writes the rows it writes";
        }
        StringBuilder sb = new StringBuilder();
        if (classes[i] == Kind.LOCAL_OR_GLOBAL) {
            sb.append("local-or-global: partitioned by ").append(keys[i][0]).append(" and ").append(keys[i][1])
                    .append("; a request is local when both route to the same instance, else global (run at the "
                            + "instance of ").append(keys[i][0]).append("). Every conflict on what it writes implies ");
        } else {
            sb.append("local: every conflict on what it writes implies ");
        }
        List<String> parts = new ArrayList<>();
        for (Map.Entry<String, Set<String>> e : localByKey.entrySet()) {
            parts.add(e.getKey() + " (with " + String.join(", ", e.getValue()) + ")");
        }
        sb.append(String.join(" or ", parts));
        sb.append(" equal to the other request's partitioning parameter, so no request of another partition "
                + "reads from it (Definition 1)");
        sb.append(existenceOnlyReaders(i));
        return sb.toString();
    }

    /**
     * The readers that ask only whether rows this transaction changes exist (an INSERT's duplicate check,
     * MAX(key), COUNT(*)): its UPDATEs change columns, never existence, so they do not read from it.
     */
    /** Existence and the columns it selects by (or a single column: MAX(key) of any row). */
    private static boolean readsExistenceAndKeys(Entry r) {
        if (!r.attributes().contains(Entry.EXISTENCE) || r.attributes().contains(Entry.ALL)) {
            return false;
        }
        Set<String> bound = new java.util.HashSet<>();
        r.condition().equalities().forEach(e -> bound.add(e.column()));
        return r.attributes().size() <= 2 || bound.containsAll(r.attributes().stream()
                .filter(a -> !a.equals(Entry.EXISTENCE)).toList());
    }

    private String existenceOnlyReaders(int i) {
        Map<String, Set<String>> byTable = new LinkedHashMap<>();
        for (Entry w : txs.get(i).writeSet()) {
            if (w.effect() != Entry.Effect.CHANGE || w.touchesExistence()) {
                continue;
            }
            for (AnalyzedTransaction other : txs) {
                for (Entry r : other.readSet()) {
                    if (other != txs.get(i) && r.table().equals(w.table()) && readsExistenceAndKeys(r)
                            && !w.overlaps(r)) {
                        byTable.computeIfAbsent(r.describeAttributes(), k -> new TreeSet<>()).add(other.name());
                    }
                }
            }
        }
        if (byTable.isEmpty()) {
            return "";
        }
        List<String> parts = new ArrayList<>();
        byTable.forEach((attributes, readers) -> parts.add(String.join(", ", readers) + " read" + (readers.size() == 1 ? "s" : "")
                + " only " + attributes));
        return "; " + String.join("; ", parts) + ": whether rows exist and their keys, which " + txs.get(i).name()
                + "'s updates do not change";
    }

    private static String localizingKey(Conflict c, String[] writerKeys, String otherHome) {
        if (otherHome == null) {
            return null;
        }
        for (String a : writerKeys) {
            if (c.clause().implies(a, otherHome)) {
                return a;
            }
        }
        return null;
    }

    private String globalReason(int i, String[][] keys, List<Conflict> unlocalized) {
        AnalyzedTransaction t = txs.get(i);
        Conflict shown = unlocalized.get(0);
        for (Conflict c : unlocalized) {
            int rank = rank(c);
            if (rank < rank(shown)) {
                shown = c;
            }
        }
        int j = txs.indexOf(shown.other());
        String otherHome = home(keys[j]);
        StringBuilder sb = new StringBuilder("global: ");
        sb.append(shown.otherName());
        sb.append(shown.self() ? " (another request of it" : " (");
        sb.append(otherHome == null ? (shown.self() ? ")" : "no partitioning parameter)")
                : (shown.self() ? ", " : "") + "partitioned by " + otherHome + ")");
        sb.append(" of another partition may ").append(shown.kind() == Conflict.Kind.READ_WRITE ? "read" : "write")
                .append(" ").append(attributes(shown)).append(" that ").append(t.name()).append(" writes (")
                .append(shown.write().source()).append(") under conflict condition [")
                .append(shown.renderClause()).append("]");
        if (keys[i].length == 0) {
            sb.append(", and ").append(t.name()).append(" has no input parameter to partition by");
        } else if (otherHome == null) {
            sb.append(", and ").append(shown.otherName()).append(" has no partitioning parameter");
        } else {
            sb.append(", which does not imply ");
            List<String> eqs = new ArrayList<>();
            for (String k : keys[i]) {
                eqs.add(t.name() + "." + k + " = " + shown.otherName() + "." + otherHome);
            }
            sb.append(String.join(" or ", eqs));
        }
        Set<String> widenings = new LinkedHashSet<>();
        widenings.addAll(shown.write().condition().widenings());
        widenings.addAll(shown.access().condition().widenings());
        if (!widenings.isEmpty()) {
            sb.append("; widened: ").append(String.join("; ", widenings.stream().limit(2).toList()));
        }
        Set<String> others = new TreeSet<>();
        for (Conflict c : unlocalized) {
            if (c != shown) {
                others.add(c.otherName());
            }
        }
        long more = unlocalized.size() - 1;
        if (more > 0) {
            sb.append(" (").append(more).append(" more conflict").append(more == 1 ? "" : "s")
                    .append(" not local, with ").append(String.join(", ", others)).append(")");
        }
        return sb.toString();
    }

    /** Prefer explaining with another transaction reading (the paper's "reads from"), widened last. */
    private static int rank(Conflict c) {
        int r = 0;
        if (c.self()) {
            r += 2;
        }
        if (c.kind() != Conflict.Kind.READ_WRITE) {
            r += 1;
        }
        return r;
    }

    private static String attributes(Conflict c) {
        Set<String> shared = c.write().sharedAttributes(c.access());
        String table = c.table().equals(Entry.ANY_TABLE) ? "any table" : c.table();
        if (shared.contains(Entry.ALL)) {
            return "rows of " + table;
        }
        return shared.size() == 1 ? table + "." + shared.iterator().next()
                : table + ".{" + String.join(",", shared) + "}";
    }
}
