package dev.gyro.analyzer;

import dev.gyro.analyzer.java.JavaFrontEnd;
import dev.gyro.analyzer.java.Quoting;
import dev.gyro.analyzer.java.ReplacedSql;
import dev.gyro.analyzer.java.Unclassified;
import dev.gyro.analyzer.model.Diagnostic;
import dev.gyro.analyzer.sql.SqlAccessExtractor;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code gyro analyze PATH... [--mix FILE] [--json FILE]}: the request classification tool (paper,
 * Section VI). Reads the application's Java source (folders or files; {@code .sql} files in them are read
 * for CREATE TABLE), prints the classification in the form of the paper's Table I and, per transaction,
 * its class, partitioning parameter(s) and the reason, and with {@code --json} writes the classification
 * file the runtime consumes (see {@link dev.gyro.app.Classification}).
 *
 * <p><b>Mix file</b> ({@code --mix}): one transaction per line, a name and its relative frequency,
 * optionally separated by {@code =} or {@code :}, optionally with {@code %}; {@code #} starts a comment:
 * <pre>
 * # shopping mix
 * createCart 10
 * addItem    60
 * order      30%
 * </pre>
 * Weights need not add up to 100; a transaction not listed has weight 0; without a mix every transaction
 * weighs 1. See {@link Mix}.
 *
 * <p><b>Exit code</b>: 0 when the analysis ran (problems in the input are reported on standard error, each
 * naming its file and line, and handled conservatively); 2 for usage errors (no such path, unreadable or
 * malformed mix file, bad option); 1 when nothing could be analyzed (no transaction found) or the JSON file
 * cannot be written; 3 with {@code --strict} when a public method that can execute SQL was not classified
 * (it is listed, and the count is repeated loudly at the end, with or without {@code --strict}).
 *
 * <p>The lead registers this class as a subcommand of the {@code gyro} CLI; {@link #main} runs it alone.
 */
@Command(name = "analyze", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
                "Classify the transactions of an application as local, global or local-or-global (Gyro paper,"
                        + " Section VI, Definition 1, Algorithm 2), from its Java source, without running it."},
        footer = {"", "Mix file: one 'TRANSACTION WEIGHT' per line ('=' or ':' allowed, '%%' allowed, '#' comments);"
                + " unlisted transactions weigh 0, every transaction weighs 1 without --mix.",
                "Exit code: 0 analyzed; 1 nothing could be analyzed; 2 usage error; 3 --strict and a public method"
                        + " that can execute SQL was not classified."})
public final class AnalyzeCommand implements Callable<Integer> {

    @Parameters(paramLabel = "PATH", arity = "1..*",
            description = "Java source folders or files of the application (.sql files in them are read for CREATE TABLE).")
    List<Path> paths;

    @Option(names = "--mix", paramLabel = "FILE", description = "Workload mix: relative frequency of each transaction.")
    Path mix;

    @Option(names = "--json", paramLabel = "FILE", description = "Write the classification file the runtime reads; '-' writes it to standard output (and the"
            + " report to standard error).")
    Path json;

    @Option(names = "--sets", description = "Also print each transaction's read and write sets.")
    boolean sets;

    @Option(names = "--write-granularity", paramLabel = "row|attribute", defaultValue = "row",
            description = "What an UPDATE writes: the whole row (default: state updates ship row images) or only "
                    + "its SET columns (the paper's attribute-level analysis).")
    String writeGranularity;

    @Option(names = "--front-end", paramLabel = "auto|gyro|legacy", defaultValue = "auto",
            description = "How transactions are found: Gyro transaction classes (run(TxContext, ...)), legacy JDBC "
                    + "methods and servlets, or auto (default): the Gyro model if the sources have any Gyro "
                    + "transaction class, else legacy.")
    String frontEnd;

    @Option(names = "--replaced-sql", paramLabel = "declared|computed", defaultValue = "declared",
            description = "An SQL text a setter may replace at run time on a statement picked by code outside the "
                    + "sources (per-vendor dialect files): analyze the text the statement is made with and warn at the "
                    + "setter call (default), or take it as computed SQL (any row of any table).")
    String replacedSql;

    @Option(names = "--dialect", paramLabel = "auto|mysql|ansi", defaultValue = "auto",
            description = "What a double quote opens in the SQL: a string (mysql: MySQL and MariaDB) or an identifier "
                    + "(ansi); auto (default): mysql when the sources hold only MySQL or MariaDB JDBC URLs, or MySQL "
                    + "DDL, else ansi.")
    String dialect;

    @Option(names = "--instances", paramLabel = "N", defaultValue = "0",
            description = "Number of instances: the partitioning then prefers keys that take at least N distinct "
                    + "values (a boolean or enum key, or one given with --key-values, cannot spread load further).")
    int instances;

    @Option(names = "--key-values", paramLabel = "INPUT=N", split = ",",
            description = "Distinct values an input takes (input or transaction.input), e.g. warehouseId=4.")
    Map<String, Integer> keyValues = new java.util.LinkedHashMap<>();

    @Option(names = "--strict", description = "Fail (exit code 3, no JSON written) when a public method that can "
            + "execute SQL is neither a transaction nor called by one: a request the analysis did not see may read "
            + "what transactions it calls local write.")
    boolean strict;

    @Spec
    CommandSpec spec;

    public static void main(String[] args) {
        System.exit(new CommandLine(new AnalyzeCommand()).execute(args));
    }

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        boolean jsonToStdout = json != null && json.toString().equals("-");
        PrintWriter out = jsonToStdout ? err : spec.commandLine().getOut(); // the report; standard output is the JSON's
        for (Path p : paths) {
            if (!Files.exists(p)) {
                throw new CommandLine.ParameterException(spec.commandLine(), "no such file or folder: " + p);
            }
        }
        SqlAccessExtractor.WriteGranularity granularity;
        switch (writeGranularity.toLowerCase(Locale.ROOT)) {
            case "row" -> granularity = SqlAccessExtractor.WriteGranularity.ROW;
            case "attribute" -> granularity = SqlAccessExtractor.WriteGranularity.ATTRIBUTE;
            default -> throw new CommandLine.ParameterException(spec.commandLine(),
                    "--write-granularity must be row or attribute, not " + writeGranularity);
        }
        JavaFrontEnd.Mode mode;
        switch (frontEnd.toLowerCase(Locale.ROOT)) {
            case "auto" -> mode = JavaFrontEnd.Mode.AUTO;
            case "gyro" -> mode = JavaFrontEnd.Mode.GYRO;
            case "legacy" -> mode = JavaFrontEnd.Mode.LEGACY;
            default -> throw new CommandLine.ParameterException(spec.commandLine(),
                    "--front-end must be auto, gyro or legacy, not " + frontEnd);
        }
        ReplacedSql replaced;
        switch (replacedSql.toLowerCase(Locale.ROOT)) {
            case "declared" -> replaced = ReplacedSql.DECLARED;
            case "computed" -> replaced = ReplacedSql.COMPUTED;
            default -> throw new CommandLine.ParameterException(spec.commandLine(),
                    "--replaced-sql must be declared or computed, not " + replacedSql);
        }
        Quoting quoting;
        switch (dialect.toLowerCase(Locale.ROOT)) {
            case "auto" -> quoting = Quoting.AUTO;
            case "mysql" -> quoting = Quoting.MYSQL;
            case "ansi" -> quoting = Quoting.ANSI;
            default -> throw new CommandLine.ParameterException(spec.commandLine(),
                    "--dialect must be auto, mysql or ansi, not " + dialect);
        }
        Map<String, Double> weights = Map.of();
        if (mix != null) {
            try {
                weights = Mix.parse(mix).weights();
            } catch (Mix.MixException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
            }
        }

        if (instances < 0) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--instances must be 0 or more, not " + instances);
        }
        AnalysisResult result = new Analyzer().weights(weights).writeGranularity(granularity).frontEnd(mode)
                .replacedSql(replaced).quoting(quoting).instances(instances, keyValues).analyze(paths);
        for (Diagnostic d : result.diagnostics()) {
            err.println(d);
        }
        if (result.transactions().isEmpty()) {
            err.println("gyro analyze: no transaction found in " + paths + " (" + result.javaFiles()
                    + " Java file" + (result.javaFiles() == 1 ? "" : "s") + " parsed): nothing to classify");
            err.flush();
            return 1;
        }
        Report.print(result, applicationName(), sets, out);
        out.flush();
        long unclassified = result.diagnostics().stream()
                .filter(d -> d.message().startsWith(Unclassified.PREFIX)).count();
        if (unclassified > 0) {
            err.println("gyro analyze: WARNING: " + unclassified + " public method" + (unclassified == 1 ? "" : "s")
                    + " that can execute SQL " + (unclassified == 1 ? "is" : "are") + " not classified (listed above):"
                    + " if requests run them, the classification above may call local a transaction they read from."
                    + (strict ? " --strict: failing." : " Use --strict to fail on this."));
            if (strict) {
                err.flush();
                return 3;
            }
        }
        if (json != null) {
            try {
                if (jsonToStdout) {
                    PrintWriter stdout = spec.commandLine().getOut();
                    stdout.print(result.classificationFile().toJson());
                    stdout.flush();
                } else {
                    result.classificationFile().write(json);
                    err.println("classification written to " + json);
                }
            } catch (IOException | RuntimeException e) {
                err.println("gyro analyze: cannot write " + json + ": " + e.getMessage());
                err.flush();
                return 1;
            }
        }
        err.flush();
        return 0;
    }

    private String applicationName() {
        Path first = paths.get(0).toAbsolutePath().normalize();
        Path name = first.getFileName();
        if (name != null && name.toString().endsWith(".java") && first.getParent() != null) {
            name = first.getParent().getFileName();
        }
        return name == null ? "application" : name.toString();
    }
}
