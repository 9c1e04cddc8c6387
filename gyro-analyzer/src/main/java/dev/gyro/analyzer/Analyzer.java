package dev.gyro.analyzer;

import dev.gyro.analyzer.java.JavaFrontEnd;
import dev.gyro.analyzer.java.Quoting;
import dev.gyro.analyzer.java.ReplacedSql;
import dev.gyro.analyzer.java.SourceIndex;
import dev.gyro.analyzer.model.AnalyzedTransaction;
import dev.gyro.analyzer.model.Diagnostic;
import dev.gyro.analyzer.model.Entry;
import dev.gyro.analyzer.model.Equality;
import dev.gyro.analyzer.model.SourceRef;
import dev.gyro.analyzer.model.Value;
import dev.gyro.analyzer.partition.Conflict;
import dev.gyro.analyzer.partition.ConflictDetector;
import dev.gyro.analyzer.partition.PartitionedTables;
import dev.gyro.analyzer.partition.Partitioner;
import dev.gyro.analyzer.sql.ReadRows;
import dev.gyro.analyzer.sql.RowImages;
import dev.gyro.analyzer.sql.Schema;
import dev.gyro.analyzer.sql.SqlAccessExtractor;
import dev.gyro.analyzer.sql.SqlSite;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.Statements;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The request classification tool (paper, Section VI) as a library: Java sources in, classification out.
 * Never throws on bad input: unparsable Java or SQL becomes a {@link Diagnostic} and a conservative
 * assumption.
 *
 * <pre>
 * AnalysisResult r = new Analyzer().analyze(List.of(Path.of("src/main/java")));
 * r.classificationFile().write(Path.of("classification.json"));
 * </pre>
 */
public final class Analyzer {
    /** How many times the row images may be narrowed and grown again before the analysis keeps the widest. */
    private static final int MAX_IMAGE_ROUNDS = 8;

    private static final Logger LOG = LoggerFactory.getLogger(Analyzer.class);

    private Map<String, Double> weights = Map.of();
    private SqlAccessExtractor.WriteGranularity granularity = SqlAccessExtractor.WriteGranularity.ROW;
    private JavaFrontEnd.Mode frontEnd = JavaFrontEnd.Mode.AUTO;
    private ReplacedSql replacedSql = ReplacedSql.DECLARED;
    private Quoting quoting = Quoting.AUTO;
    private int instances;
    private Map<String, Integer> keyValues = Map.of();

    /** Weights of the transactions (a workload mix); a transaction not listed has weight 0. */
    public Analyzer weights(Map<String, Double> weights) {
        this.weights = Map.copyOf(weights);
        return this;
    }

    /** What an UPDATE writes: the whole row (default, matches row-image state updates) or its SET columns. */
    public Analyzer writeGranularity(SqlAccessExtractor.WriteGranularity granularity) {
        this.granularity = granularity;
        return this;
    }

    /**
     * The number of instances the application will run on (0: unknown), and how many distinct values some
     * inputs take ({@code warehouseId} or {@code newOrder.warehouseId}), beyond what their Java types say:
     * the partitioning objective then prefers keys that can spread a transaction's load over all instances.
     */
    public Analyzer instances(int instances, Map<String, Integer> keyValues) {
        this.instances = instances;
        this.keyValues = Map.copyOf(keyValues);
        return this;
    }

    /** Which front-end finds the transactions (default: the Gyro model if the sources use it, else legacy). */
    public Analyzer frontEnd(JavaFrontEnd.Mode frontEnd) {
        this.frontEnd = frontEnd;
        return this;
    }

    /**
     * What an SQL text a setter may replace at run time is taken to be (default: the text the statement is made with,
     * with a warning naming the setter call; docs/decisions/33-declared-sql-texts.md).
     */
    public Analyzer replacedSql(ReplacedSql replacedSql) {
        this.replacedSql = replacedSql;
        return this;
    }

    /** What a double quote is in the application's SQL (default: decided from the sources; {@link Quoting}). */
    public Analyzer quoting(Quoting quoting) {
        this.quoting = quoting;
        return this;
    }

    public AnalysisResult analyze(List<Path> paths) {
        long start = System.nanoTime();
        SourceIndex index = SourceIndex.load(paths);
        LOG.debug("parsed {} Java files in {} ms", index.javaFileCount(), (System.nanoTime() - start) / 1_000_000);
        List<Diagnostic> diagnostics = new ArrayList<>(index.diagnostics());
        JavaFrontEnd.Result found = JavaFrontEnd.analyze(index, frontEnd, replacedSql, quoting);
        diagnostics.addAll(found.diagnostics());
        LOG.debug("found {} transactions in {} ms", found.transactions().size(), (System.nanoTime() - start) / 1_000_000);

        // Schema: CREATE TABLE statements first, then the columns the DML statements name.
        Schema schema = new Schema();
        for (JavaFrontEnd.SchemaText text : found.schemaTexts()) {
            learnDeclarations(text, schema, diagnostics);
        }
        Map<SqlSite, SqlAccessExtractor.Parsed> parsed = new LinkedHashMap<>();
        for (JavaFrontEnd.DiscoveredTransaction t : found.transactions()) {
            for (SqlSite site : t.sites()) {
                SqlAccessExtractor.Parsed p = SqlAccessExtractor.parse(site);
                parsed.put(site, p);
                for (Statement s : p.statements()) {
                    SqlAccessExtractor.learnSchema(s, schema);
                }
            }
        }

        LOG.debug("parsed the SQL in {} ms", (System.nanoTime() - start) / 1_000_000);
        SqlAccessExtractor extractor = new SqlAccessExtractor(schema, granularity);
        Map<JavaFrontEnd.DiscoveredTransaction, List<Entry>> readSets = new LinkedHashMap<>();
        Map<JavaFrontEnd.DiscoveredTransaction, List<Entry>> writeSets = new LinkedHashMap<>();
        for (JavaFrontEnd.DiscoveredTransaction t : found.transactions()) {
            List<Entry> reads = new ArrayList<>();
            List<Entry> writes = new ArrayList<>();
            readSets.put(t, reads);
            writeSets.put(t, writes);
            for (SqlSite site : t.sites()) {
                SqlAccessExtractor.Parsed p = parsed.get(site);
                // located at the transaction, naming where the statement is: once per transaction and statement,
                // however many call paths reach it
                if (site.sql() == null) {
                    diagnostics.add(Diagnostic.warning(t.source(), "SQL text of " + t.name() + " at " + site.source()
                            + " is computed at run time (" + site.unknownReason() + "): the statement is taken to "
                            + (site.hint() == SqlSite.ExecutionHint.QUERY ? "read" : "read and write")
                            + " any row of any table"));
                } else if (p.error() != null && !site.named().isEmpty()) {
                    diagnostics.add(Diagnostic.warning(t.source(), "SQL text of " + t.name() + " at " + site.source()
                            + " is built at run time and could not be read (" + p.error()
                            + "); taken to access any row of any table"));
                    p = new SqlAccessExtractor.Parsed(new SqlSite(null, "values concatenated into the SQL text",
                            site.positional(), site.named(), site.hint(), site.source()), List.of(), null);
                }
                SqlAccessExtractor.Result r = extractor.extract(p);
                reads.addAll(r.reads());
                writes.addAll(r.writes());
                diagnostics.addAll(r.diagnostics());
            }
        }
        // A key read from a row names that row: the entry at that key gets the equalities the row satisfied.
        ReadRows rows = new ReadRows(parsed.values(), schema);
        for (JavaFrontEnd.DiscoveredTransaction t : found.transactions()) {
            List<Entry> reads = readSets.get(t);
            List<Entry> writes = writeSets.get(t);
            readSets.put(t, rows.strengthen(reads, reads, writes));
            writeSets.put(t, rows.strengthen(writes, reads, writes));
        }
        // What row images carry is known once every statement is: the columns some statement can change. A
        // request classified global ships its row images in the token's total order, so a column that only
        // global requests change holds the same value on every instance when an image copies it. So the
        // images are narrowed to the columns non-global requests change, growing that set until the
        // classification it gives makes no other request non-global (a fixpoint, hence consistent).
        RowImages images = RowImages.of(writeSets.values(), schema);
        List<AnalyzedTransaction> transactions = build(found.transactions(), readSets, writeSets, images, keyValues);
        LOG.debug("read and write sets in {} ms", (System.nanoTime() - start) / 1_000_000);
        List<Conflict> conflicts = ConflictDetector.detect(transactions);
        LOG.debug("{} conflicts in {} ms", conflicts.size(), (System.nanoTime() - start) / 1_000_000);
        Map<String, Double> w = weightsFor(transactions, diagnostics);
        Partitioner.Result partitioning = Partitioner.run(transactions, conflicts, w, instances);
        if (granularity == SqlAccessExtractor.WriteGranularity.ROW) {
            Set<String> changers = notGlobal(partitioning);
            for (int round = 0; round < MAX_IMAGE_ROUNDS; round++) {
                RowImages narrower = RowImages.of(writesOf(writeSets, changers), schema);
                if (narrower.covers(images)) {
                    break; // nothing to narrow
                }
                List<AnalyzedTransaction> refined = build(found.transactions(), readSets, writeSets, narrower, keyValues);
                List<Conflict> refinedConflicts = ConflictDetector.detect(refined);
                Partitioner.Result refinedPartitioning = Partitioner.run(refined, refinedConflicts, w, instances);
                Set<String> grown = new LinkedHashSet<>(changers);
                grown.addAll(notGlobal(refinedPartitioning));
                if (grown.equals(changers)) {
                    transactions = refined;
                    conflicts = refinedConflicts;
                    partitioning = refinedPartitioning;
                    break;
                }
                changers = grown;
            }
        }
        LOG.debug("partitioned and classified in {} ms", (System.nanoTime() - start) / 1_000_000);
        // a statement reached by several transactions or call paths reports each problem once
        List<Diagnostic> distinct = new ArrayList<>(new LinkedHashSet<>(diagnostics));
        PartitionedTables tables = PartitionedTables.derive(partitioning.classifications(), schema.spellings());
        return new AnalysisResult(transactions, conflicts, partitioning.classifications(), partitioning.search(),
                partitioning.cost(), distinct, index.javaFileCount(), tables, schema.spellings());
    }

    /** The transactions the partitioning does not make global. */
    private static Set<String> notGlobal(Partitioner.Result partitioning) {
        Set<String> out = new LinkedHashSet<>();
        for (var c : partitioning.classifications()) {
            if (c.kind() != dev.gyro.app.Kind.GLOBAL) {
                out.add(c.transaction().name());
            }
        }
        return out;
    }

    private static List<List<Entry>> writesOf(Map<JavaFrontEnd.DiscoveredTransaction, List<Entry>> writeSets,
                                              Set<String> names) {
        List<List<Entry>> out = new ArrayList<>();
        writeSets.forEach((t, writes) -> {
            if (names.contains(t.name())) {
                out.add(writes);
            }
        });
        return out;
    }

    private static List<AnalyzedTransaction> build(List<JavaFrontEnd.DiscoveredTransaction> found,
                                                   Map<JavaFrontEnd.DiscoveredTransaction, List<Entry>> readSets,
                                                   Map<JavaFrontEnd.DiscoveredTransaction, List<Entry>> writeSets,
                                                   RowImages images, Map<String, Integer> keyValues) {
        List<AnalyzedTransaction> transactions = new ArrayList<>();
        for (JavaFrontEnd.DiscoveredTransaction t : found) {
            List<Entry> reads = readSets.get(t);
            List<Entry> writes = writeSets.get(t).stream().map(images::resolve).toList();
            Set<String> notes = new LinkedHashSet<>(t.notes());
            List<String> parameters = new ArrayList<>(t.parameters());
            for (List<Entry> set : List.of(reads, writes)) {
                for (Entry e : set) {
                    for (Equality eq : e.condition().equalities()) {
                        if (eq.value() instanceof Value.Param param && !parameters.contains(param.name())) {
                            parameters.add(param.name());
                        }
                    }
                    notes.addAll(e.condition().widenings());
                }
            }
            Map<String, Integer> counts = new LinkedHashMap<>(t.valueCounts());
            for (String p : parameters) {
                Integer given = keyValues.getOrDefault(t.name() + "." + p, keyValues.get(p));
                if (given != null) {
                    counts.put(p, given);
                }
            }
            transactions.add(new AnalyzedTransaction(t.name(), t.origin(), t.className(), t.source(), parameters,
                    reads, writes, new ArrayList<>(notes), counts, t.method()));
        }
        return transactions;
    }

    private Map<String, Double> weightsFor(List<AnalyzedTransaction> transactions, List<Diagnostic> diagnostics) {
        if (weights.isEmpty()) {
            return Map.of();
        }
        Map<String, Double> out = new LinkedHashMap<>();
        Set<String> names = new LinkedHashSet<>();
        for (AnalyzedTransaction t : transactions) {
            names.add(t.name());
            Double weight = weights.get(t.name());
            if (weight == null) {
                diagnostics.add(Diagnostic.warning(t.source(), "the mix does not list transaction " + t.name()
                        + ": its weight is 0"));
            }
            out.put(t.name(), weight == null ? 0.0 : weight);
        }
        for (String listed : weights.keySet()) {
            if (!names.contains(listed)) {
                diagnostics.add(Diagnostic.warning(new SourceRef(Path.of("mix"), 0), "the mix lists " + listed
                        + ", which is not a transaction of the analyzed code"));
            }
        }
        return out;
    }

    private static void learnDeclarations(JavaFrontEnd.SchemaText text, Schema schema, List<Diagnostic> diagnostics) {
        try {
            Statements statements = CCJSqlParserUtil.parseStatements(text.sql());
            for (Statement s : statements) {
                SqlAccessExtractor.learnDeclaration(s, schema);
            }
            return;
        } catch (Exception | StackOverflowError e) {
            // fall back to one statement at a time: a schema file may mix dialects
        }
        for (String piece : text.sql().split(";")) {
            if (!JavaFrontEnd.declaresSchema(piece)) {
                continue;
            }
            try {
                SqlAccessExtractor.learnDeclaration(CCJSqlParserUtil.parse(piece), schema);
            } catch (Exception | StackOverflowError e) {
                String first = piece.strip().lines().findFirst().orElse("");
                diagnostics.add(Diagnostic.warning(text.source(), "cannot parse \"" + first
                        + "\": that table's columns and keys are not known to the analysis"));
            }
        }
    }
}
