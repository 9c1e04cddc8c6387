package dev.gyro.analyzer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code gyro analyze}: output, the classification file's contract, exit codes and bad input. */
class AnalyzeCommandTest {

    private record Run(int exit, String out, String err) {
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new AnalyzeCommand());
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int exit = cli.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    void printsTableOneAndOneLinePerTransaction() {
        Run r = run(Fixtures.fixture("store").toString());
        assertThat(r.exit()).isZero();
        assertThat(r.out()).contains("Application  L  G  L/G  Read-only  Total")
                .contains("store        2  1  0    0          3")
                .containsPattern("addItem +local +cartId +no +AddItem.java:\\d+")
                .containsPattern("order +global +cartId +no +Order.java:\\d+")
                .contains("order (global): global: addItem");
        assertThat(r.err()).isEmpty();
    }

    @Test
    void theJsonFileFollowsTheContract(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("out/classification.json");
        Run r = run(Fixtures.fixture("rubis").toString(), "--json", json.toString());
        assertThat(r.exit()).isZero();

        JsonNode root = new ObjectMapper().readTree(json.toFile());
        assertThat(fieldNames(root)).containsExactly("transactions", "partitionedTables", "summary");
        assertThat(root.get("transactions").isArray()).isTrue();
        // each table the local writers write, with the column they bind to their home key (PartitionedTables)
        assertThat(fieldNames(root.get("partitionedTables"))).containsExactly("BIDS", "ITEMS", "USERS");
        root.get("partitionedTables").forEach(column -> assertThat(column.isTextual()).isTrue());
        int local = 0;
        int global = 0;
        int both = 0;
        int readOnly = 0;
        for (JsonNode t : root.get("transactions")) {
            assertThat(fieldNames(t)).containsExactly("name", "class", "readOnly", "partitionBy", "reason");
            assertThat(t.get("name").isTextual()).isTrue();
            assertThat(t.get("class").asText()).isIn("local", "global", "local-or-global");
            assertThat(t.get("readOnly").isBoolean()).isTrue();
            assertThat(t.get("partitionBy").isArray()).isTrue();
            t.get("partitionBy").forEach(p -> assertThat(p.isTextual()).isTrue());
            assertThat(t.get("reason").asText()).isNotBlank();
            switch (t.get("class").asText()) {
                case "local" -> local++;
                case "global" -> global++;
                default -> {
                    both++;
                    assertThat(t.get("partitionBy")).hasSize(2);
                }
            }
            if (t.get("readOnly").asBoolean()) {
                readOnly++;
            }
        }
        JsonNode summary = root.get("summary");
        assertThat(fieldNames(summary)).containsExactly("local", "global", "localOrGlobal", "readOnly", "total");
        assertThat(summary.get("local").asInt()).isEqualTo(local).isEqualTo(4);
        assertThat(summary.get("global").asInt()).isEqualTo(global).isZero();
        assertThat(summary.get("localOrGlobal").asInt()).isEqualTo(both).isEqualTo(1);
        assertThat(summary.get("readOnly").asInt()).isEqualTo(readOnly).isEqualTo(3);
        assertThat(summary.get("total").asInt()).isEqualTo(root.get("transactions").size()).isEqualTo(5);

        // what the runtime reads: the same codec
        dev.gyro.app.Classification file = dev.gyro.app.Classification.read(json);
        assertThat(file.rule("storeBid").partitionBy()).containsExactly("itemId", "userId");
        assertThat(file.summary()).isEqualTo(new dev.gyro.app.Classification.Summary(local, global, both, readOnly, 5));
        assertThat(file.partitionedTables()).isEqualTo(Map.of("BIDS", "ITEM_ID", "ITEMS", "ID", "USERS", "ID"));
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }

    @Test
    void unparsableJavaIsReportedWithFileAndLineAndTheRestIsAnalyzed(@TempDir Path dir) {
        Fixtures.copy("store", dir);
        Fixtures.write(dir, "Broken.java", "package x;\n\npublic class Broken {\n    void f( {\n}\n");
        Run r = run(dir.toString());
        assertThat(r.exit()).isZero();
        assertThat(r.err()).containsPattern("Broken\\.java:4: error: cannot parse Java source: .+");
        assertThat(r.out()).contains("2  1  0    0          3");
    }

    @Test
    void unparsableSqlIsReportedWithFileAndLine(@TempDir Path dir) {
        Fixtures.write(dir, "app/Bad.java", Fixtures.oneStatement("Bad", "long id", "SELEC NAME FROM ITEMS WHERE I_ID = ?", "id"));
        Run r = run(dir.toString());
        assertThat(r.exit()).isZero();
        assertThat(r.err()).containsPattern("Bad\\.java:10: error: cannot parse SQL \"SELEC NAME FROM ITEMS WHERE I_ID = \\?\": "
                + "unexpected .* at line 1, column \\d+ of the SQL; the statement is taken to read and write any row of any table");
        assertThat(r.out()).contains("bad (global)");
    }

    @Test
    void aMixFileChangesThePartitioning(@TempDir Path dir) {
        Path mix = Fixtures.write(dir, "mix.txt", "createCart 10\naddItem 60\norder 30\n");
        Run r = run(Fixtures.fixture("store").toString(), "--mix", mix.toString());
        assertThat(r.exit()).isZero();
        assertThat(r.out()).contains("store        2  1  0    0          3");
    }

    @Test
    void nothingToAnalyzeExitsWithOne(@TempDir Path dir) {
        Fixtures.write(dir, "Plain.java", "class Plain { int f() { return 1; } }");
        Run r = run(dir.toString());
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err()).contains("no transaction found").contains("1 Java file parsed");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void usageErrorsExitWithTwo(@TempDir Path dir) {
        Run missing = run(dir.resolve("nope").toString());
        assertThat(missing.exit()).isEqualTo(2);
        assertThat(missing.err()).contains("no such file or folder: " + dir.resolve("nope"));

        Path mix = Fixtures.write(dir, "mix.txt", "order 1\norder two\n");
        Run badMix = run(Fixtures.fixture("store").toString(), "--mix", mix.toString());
        assertThat(badMix.exit()).isEqualTo(2);
        assertThat(badMix.err()).contains(mix + ":2: expected");

        assertThat(run().exit()).isEqualTo(2);
        assertThat(run(dir.toString(), "--write-granularity", "cell").exit()).isEqualTo(2);
        Run badPolicy = run(Fixtures.fixture("store").toString(), "--replaced-sql", "guessed");
        assertThat(badPolicy.exit()).isEqualTo(2);
        assertThat(badPolicy.err()).contains("--replaced-sql must be declared or computed, not guessed");
        assertThat(run(Fixtures.fixture("store").toString(), "--dialect", "cobol").err())
                .contains("--dialect must be auto, mysql or ansi, not cobol");
    }

    @Test
    void aTextASetterMayReplaceIsNamedAtTheSetterAndWidenedOnRequest() {
        Run declared = run(Fixtures.fixture("kits/procedures").toString());
        assertThat(declared.exit()).isZero();
        assertThat(declared.err()).contains("Proc.java:23: warning: Stmt.setText here may replace, at run time,");
        assertThat(declared.out()).contains("AwardPoints.run   local");
        Run computed = run(Fixtures.fixture("kits/procedures").toString(), "--replaced-sql", "computed");
        assertThat(computed.exit()).isZero();
        assertThat(computed.err()).doesNotContain("may replace").contains("is computed at run time");
        assertThat(computed.out()).contains("AwardPoints.run   global");
    }

    @Test
    void unknownMixNamesAndUnlistedTransactionsAreWarnings(@TempDir Path dir) {
        Path mix = Fixtures.write(dir, "mix.txt", "addItem 60\norder 30\nbrowse 10\n");
        Run r = run(Fixtures.fixture("store").toString(), "--mix", mix.toString());
        assertThat(r.exit()).isZero();
        assertThat(r.err()).contains("the mix does not list transaction createCart: its weight is 0")
                .contains("the mix lists browse, which is not a transaction of the analyzed code");
    }

    @Test
    void setsOptionPrintsReadAndWriteSets() {
        Run r = run(Fixtures.fixture("store").toString(), "--sets");
        assertThat(r.out()).contains("    write <SHOPPING_CARTS.*, CART_ID = cartId AND ITEM_ID = 0 AND QTY = 0> (CreateCart.java:");
    }

    @Test
    void helpDescribesTheCommand() {
        Run r = run("--help");
        assertThat(r.exit()).isZero();
        assertThat(r.out()).contains("Usage: analyze").contains("--mix=FILE").contains("--json=FILE").contains("Mix file");
        assertThat(Set.of(AnalyzeCommand.class.getAnnotation(CommandLine.Command.class).name())).containsExactly("analyze");
    }

    @Test
    void strictFailsWhenAMethodThatCanExecuteSqlIsNotClassified(@org.junit.jupiter.api.io.TempDir Path dir) {
        Path json = dir.resolve("c.json");
        Run lenient = run(Fixtures.fixture("discovery/dao").toString(), "--json", json.toString());
        assertThat(lenient.exit()).isZero();
        assertThat(lenient.err()).contains("unclassified SQL: public method NightlyJob.purgeVisits")
                .contains("WARNING: 1 public method that can execute SQL is not classified");
        Path strictJson = dir.resolve("strict.json");
        Run strict = run(Fixtures.fixture("discovery/dao").toString(), "--strict", "--json", strictJson.toString());
        assertThat(strict.exit()).isEqualTo(3);
        assertThat(strict.err()).contains("--strict: failing");
        assertThat(strictJson).doesNotExist();
        assertThat(run(Fixtures.fixture("discovery/repository").toString(), "--strict").exit()).isZero();
    }

    @Test
    void instancesAndKeyValuesReachThePartitioningObjective() {
        Run r = run(Fixtures.fixture("spread/procedures").toString(), "--instances", "8", "--key-values", "warehouseId=2");
        assertThat(r.exit()).isZero();
        assertThat(r.out()).containsPattern("Deliver\\.run\\s+local-or-global\\s+orderId, warehouseId");
        assertThat(run(Fixtures.fixture("spread/procedures").toString(), "--instances", "-1").exit()).isEqualTo(2);
    }
}
