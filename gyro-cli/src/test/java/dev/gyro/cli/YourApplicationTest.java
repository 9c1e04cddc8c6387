package dev.gyro.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gyro.app.Applications;
import dev.gyro.cluster.Backend;
import dev.gyro.runtime.ApplicationCheck;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static dev.gyro.cli.ClusterCommandTest.gyro;
import static dev.gyro.cli.ClusterCommandTest.require;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The road of a user's own application, as docs/your-application.md walks it: {@code gyro new-app} writes the bank,
 * Maven builds it into a jar against the installed Gyro artifacts (a real {@code mvn package} in another process), and
 * {@code gyro cluster start --app-jar} runs it in a background process of its own on 3 instances (SQLite and
 * PostgreSQL), answering {@code gyro call --cluster}; then every kind of bad jar is refused with one line naming the
 * jar, the class and the reason.
 */
@Tag("servers")
@Tag("processes")
class YourApplicationTest {

    static Path base;
    static Path project;
    static Path jar;
    final List<Path> clusters = new ArrayList<>();

    @BeforeAll
    static void generateAndBuild() throws Exception {
        base = Files.createTempDirectory("gyro-new-app-test");
        // PostgreSQL servers run as the postgres user when the tests run as root.
        Files.setPosixFilePermissions(base, PosixFilePermissions.fromString("rwxr-xr-x"));
        project = base.resolve("bank");
        ClusterCommandTest.Run made = gyro("new-app", "bank", "--dir", project.toString());
        assertThat(made.exit()).as(made.out()).isZero();
        assertThat(made.out()).contains("wrote bank").contains("transfer").contains("global");
        // The scaffolds the refusal tests need, built with the bank in one Maven run (each run of its own cost 10-20 s)
        Path other = base.resolve("other-bank");
        assertThat(gyro("new-app", "bank", "--package", "com.example.other", "--dir", other.toString()).exit()).isZero();
        Path otherPom = other.resolve("pom.xml"); // one reactor cannot hold two com.example:bank
        Files.writeString(otherPom, Files.readString(otherPom).replaceFirst("<artifactId>bank</artifactId>",
                "<artifactId>other-bank</artifactId>"));
        assertThat(gyro("new-app", "store", "--dir", base.resolve("store-app").toString()).exit()).isZero();
        for (Path pom : List.of(otherPom, base.resolve("store-app/pom.xml"))) // the bank's own tests are enough
            Files.writeString(pom, Files.readString(pom).replaceFirst("<properties>", "<properties><skipTests>true</skipTests>"));
        Path bad = base.resolve("badsql");
        assertThat(gyro("new-app", "badsql", "--dir", bad.toString()).exit()).isZero();
        Path transfer = bad.resolve("src/main/java/com/example/badsql/Transfer.java");
        Files.writeString(transfer, Files.readString(transfer).replace(
                "\"UPDATE ACCOUNTS SET BALANCE = BALANCE + ? WHERE ACC_ID = ?\"",
                "\"UPDATE ACCOUNTS SET BALANCE = BALANCE + ? WHERE ACC_ID = ? RETURNING BALANCE * 100\""));
        // its own BankTest would fail, as it should: transfer's statement now returns rows
        deleteTree(bad.resolve("src/test"));
        Files.writeString(base.resolve("pom.xml"), """
                <project xmlns="http://maven.apache.org/POM/4.0.0">
                  <modelVersion>4.0.0</modelVersion>
                  <groupId>com.example</groupId><artifactId>scaffolds</artifactId><version>1</version>
                  <packaging>pom</packaging>
                  <modules><module>bank</module><module>other-bank</module><module>store-app</module><module>badsql</module></modules>
                </project>
                """);
        mvnPackage(base);
        jar = project.resolve("target/bank-0.1.0.jar");
        assertThat(jar).exists();
    }

    @AfterEach
    void stopClusters() {
        for (Path d : clusters) gyro("cluster", "stop", "--dir", d.toString());
    }

    @AfterAll
    static void cleanUp() throws IOException {
        if (base != null) deleteTree(base);
    }

    static void deleteTree(Path root) throws IOException {
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        }
    }

    /** {@code mvn package} in {@code dir}, offline first (the Gyro build fetched every plugin it needs). */
    static void mvnPackage(Path dir) throws Exception {
        String out = "";
        for (List<String> flags : List.of(List.of("-o"), List.<String>of())) {
            List<String> cmd = new ArrayList<>(List.of("mvn", "-B", "-ntp", "-q"));
            cmd.addAll(flags);
            cmd.add("package");
            Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
            out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(10, TimeUnit.MINUTES)).isTrue();
            if (p.exitValue() == 0) return;
        }
        throw new AssertionError("mvn package failed in " + dir + ":\n" + out);
    }

    @Test
    void theScaffoldBuildsAndRunsOnThreeSqliteInstancesInAProcessOfItsOwn() throws Exception {
        runTheTutorial("sqlite", Backend.SQLITE);
    }

    @Test
    void theScaffoldRunsOnPostgres() throws Exception {
        require(Backend.POSTGRES);
        runTheTutorial("postgres", Backend.POSTGRES);
    }

    private void runTheTutorial(String backend, Backend b) throws Exception {
        Path c = base.resolve("cluster-" + backend);
        clusters.add(c);
        ClusterCommandTest.Run started = gyro("cluster", "start", "--app-jar", jar.toString(), "--app", "bank",
                "--instances", "3", "--backend", backend, "--detach", "--dir", c.toString());
        assertThat(started.exit()).as(started.out()).isZero();
        JsonNode info = ClusterCommand.JSON.readTree(c.resolve("cluster.json").toFile());
        assertThat(info.get("application").asText()).isEqualTo("bank");
        assertThat(info.get("appJars").get(0).asText()).isEqualTo(jar.toAbsolutePath().toString());
        assertThat(info.get("pid").asLong()).as("the cluster runs in a process of its own")
                .isNotEqualTo(ProcessHandle.current().pid());

        assertThat(gyro("call", "--cluster", c.toString(), "openAccount", "1", "100").out()).startsWith("OK [100]");
        assertThat(gyro("call", "--cluster", c.toString(), "deposit", "1", "50").out()).startsWith("OK [150]");
        ClusterCommandTest.Run balance = gyro("call", "--cluster", c.toString(), "balance", "1");
        assertThat(balance.exit()).isZero();
        assertThat(balance.out()).startsWith("OK [150]");
        // A transfer to a missing account rolls back: nothing left account 1.
        ClusterCommandTest.Run refused = gyro("call", "--cluster", c.toString(), "transfer", "1", "2", "10");
        assertThat(refused.exit()).isEqualTo(1);
        assertThat(refused.out()).contains("ABORTED").contains("no account 2");
        gyro("call", "--cluster", c.toString(), "openAccount", "2", "0");
        assertThat(gyro("call", "--cluster", c.toString(), "transfer", "1", "2", "10").out()).startsWith("OK [140]");
        assertThat(gyro("call", "--cluster", c.toString(), "balance", "2").out()).startsWith("OK [10]");
        ClusterCommandTest.Run list = gyro("call", "--cluster", c.toString(), "--list");
        assertThat(list.out()).contains("balance").contains("local").contains("transfer").contains("global");
    }

    @Test
    void workloadRunsTheApplicationsOwnMixAndItsAudit() {
        Path dir = base.resolve("workload");
        ClusterCommandTest.Run run = gyro("workload", "--app-jar", jar.toString(), "--app", "bank", "--instances", "3",
                "--sessions", "4", "--duration", "2", "--dir", dir.toString());
        assertThat(run.exit()).as(run.out()).isZero();
        assertThat(run.out()).contains("transfer").contains("money is conserved").contains("workload: OK");
    }

    @Test
    void workloadCheckCatchesAClassificationThatIsWrongForTheData() throws IOException {
        // deposit marked local: a transfer of another partition then reads the account row it wrote on one instance
        String classification = Files.readString(project.resolve("src/main/resources/com/example/bank/classification.json"))
                .replaceFirst("(\"name\" : \"deposit\",\\s*\"class\" : )\"global\"", "$1\"local\"");
        assertThat(classification).contains("\"local\"");
        Path wrong = jarWith("deposit-local", Map.of("com/example/bank/classification.json", classification));
        ClusterCommandTest.Run run = gyro("workload", "--app-jar", wrong.toString(), "--app", "bank", "--check",
                "--sessions", "4", "--duration", "2", "--dir", base.resolve("check").toString());
        assertThat(run.exit()).as(run.out()).isEqualTo(1);
        assertThat(run.out()).contains("workload: FAILED");
        // The wrong class shows one way or both, depending on which requests the run happened to make: a transfer of
        // another partition read a local deposit (the recording's Definition 1 check), or the local deposits left
        // the replicated ACCOUNTS different on each instance (a loaded machine makes few requests in 2 s).
        if (run.out().contains("Definition 1 violated")) assertThat(run.out()).contains("deposit");
        else assertThat(run.out()).as(run.out()).contains("replicated table ACCOUNTS differs");
    }

    @Test
    void anApplicationWithoutAWorkloadIsToldWhatToImplement() {
        ClusterCommandTest.Run run = gyro("workload", "--app", "store", "--duration", "1", "--dir",
                base.resolve("no-workload").toString());
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.out()).contains("defines no workload").contains("implement Application.workload");
    }

    @Test
    void theBuiltInApplicationsRegisterThroughTheServiceLoaderAndPassTheRuntimesCheck() {
        Applications all = Applications.builtIn();
        assertThat(all.names()).containsExactly("micro", "rubis", "store", "tpcc", "tpcw");
        for (Applications.Found f : all.all()) {
            assertThat(f.origin()).isEqualTo(Applications.CLASS_PATH);
            ApplicationCheck.check(f.application());
        }
    }

    // ------------------------------------------------------------------------------------------ bad jars

    /** Runs {@code gyro load} with {@code jars} (cheap: it fails while finding the application) and returns its line. */
    static String loadWith(String app, Path... jars) {
        List<String> args = new ArrayList<>(List.of("load", "--app", app, "--db", base.resolve("x.db").toString()));
        for (Path j : jars) {
            args.add("--app-jar");
            args.add(j.toString());
        }
        ClusterCommandTest.Run run = gyro(args.toArray(String[]::new));
        assertThat(run.exit()).as(run.out()).isEqualTo(2);
        assertThat(run.out().strip().lines().count()).as("one line: " + run.out()).isEqualTo(1);
        return run.out().strip();
    }

    /** A copy of the bank's jar with {@code entries} replaced (path in the jar to new content). */
    static Path jarWith(String name, Map<String, String> entries) throws IOException {
        Path copy = base.resolve(name + ".jar");
        Files.copy(jar, copy, StandardCopyOption.REPLACE_EXISTING);
        try (FileSystem fs = FileSystems.newFileSystem(URI.create("jar:" + copy.toUri()), Map.of())) {
            for (Map.Entry<String, String> e : entries.entrySet())
                Files.writeString(fs.getPath(e.getKey()), e.getValue());
        }
        return copy;
    }

    @Test
    void aJarWithoutAnApplicationIsRefused() throws IOException {
        Path empty = base.resolve("no-app.jar");
        Files.copy(jar, empty, StandardCopyOption.REPLACE_EXISTING);
        try (FileSystem fs = FileSystems.newFileSystem(URI.create("jar:" + empty.toUri()), Map.of())) {
            Files.delete(fs.getPath(Applications.SERVICE_FILE));
        }
        assertThat(loadWith("bank", empty)).contains("application jar " + empty).contains("holds no application")
                .contains(Applications.SERVICE_FILE);
        Path notAJar = Files.writeString(base.resolve("notes.jar"), "not a jar");
        assertThat(loadWith("bank", notAJar)).contains(notAJar.toString()).contains("not a jar file");
        assertThat(loadWith("bank", base.resolve("missing.jar"))).contains("missing.jar").contains("no such file");
    }

    @Test
    void aServiceEntryNamingAMissingClassIsRefused() throws IOException {
        Path broken = jarWith("broken-service", Map.of(Applications.SERVICE_FILE, "com.example.bank.Nope\n"));
        assertThat(loadWith("bank", broken)).contains("application jar " + broken)
                .contains("com.example.bank.Nope").contains("is not in the jar");
    }

    @Test
    void twoApplicationsWithOneNameAreRefused() throws Exception {
        Path otherJar = base.resolve("other-bank/target/other-bank-0.1.0.jar");
        assertThat(loadWith("bank", jar, otherJar)).contains("two applications are named 'bank'")
                .contains("com.example.bank.Bank (" + jar + ")").contains("com.example.other.Bank (" + otherJar + ")");
        // the same classes in two jars: the first wins, and Gyro says so instead of picking one in silence
        Path twin = base.resolve("twin.jar");
        Files.copy(jar, twin, StandardCopyOption.REPLACE_EXISTING);
        assertThat(loadWith("bank", jar, twin)).contains("application jar " + twin)
                .contains("com.example.bank.Bank is also in application jar " + jar);
        // an application named like a built-in one
        assertThat(loadWith("store", base.resolve("store-app/target/store-0.1.0.jar")))
                .contains("two applications are named 'store'").contains("dev.gyro.apps.store.OnlineStore (the class path)");
    }

    @Test
    void aClassificationNamingATransactionTheJarLacksIsRefused() throws IOException {
        String classification = Files.readString(project.resolve("src/main/resources/com/example/bank/classification.json"))
                .replace("\"name\" : \"balance\"", "\"name\" : \"withdraw\"");
        Path wrong = jarWith("wrong-classification", Map.of("com/example/bank/classification.json", classification));
        assertThat(loadWith("bank", wrong)).contains("application jar " + wrong)
                .contains("com.example.bank.Bank").contains("classified transaction withdraw does not exist")
                .contains("transaction balance has no classification");
    }

    @Test
    void aGlobalTransactionWhoseSqlCaptureRefusesIsRefusedAtLoad() throws Exception {
        Path bad = base.resolve("badsql");
        Path badJar = bad.resolve("target/badsql-0.1.0.jar");
        assertThat(loadWith("badsql", badJar)).contains("application jar " + badJar)
                .contains("com.example.badsql.Transfer.ADD").contains("transaction transfer, global")
                .contains("its RETURNING clause computes more than columns");
    }

    @Test
    void newAppRefusesABadNameAndAFolderThatIsNotEmpty() throws IOException {
        assertThat(gyro("new-app", "Bad Name", "--dir", base.resolve("bad").toString()).exit()).isEqualTo(2);
        Path full = Files.createDirectories(base.resolve("full"));
        Files.writeString(full.resolve("mine.txt"), "keep me");
        assertThat(gyro("new-app", "bank", "--dir", full.toString()).exit()).isEqualTo(2);
        assertThat(Files.readString(full.resolve("mine.txt"))).isEqualTo("keep me");
        try (Stream<Path> s = Files.list(full)) {
            assertThat(s.count()).isEqualTo(1);
        }
    }
}
