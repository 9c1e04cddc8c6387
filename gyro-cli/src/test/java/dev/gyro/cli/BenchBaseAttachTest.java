package dev.gyro.cli;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * CMU BenchBase, built from its own unmodified source (a copy of {@code ../shared/third-party/benchbase}, read-only),
 * runs SmallBank through its own driver ({@code benchbase.jar -b smallbank --create --load --execute}) with Gyro
 * attached over three SQLite instances (docs/decisions/34-attaching.md): its report shows no unexpected SQL error,
 * {@code gyro attach} ends with {@code attach: OK}, and every instance holds the same accounts, savings and checking.
 * The classification is written here, conservatively (every writer global, Balance local and read-only).
 */
@Tag("slow")
class BenchBaseAttachTest {

    private static final Path SOURCE = Path.of("..", "..", "shared", "third-party", "benchbase").toAbsolutePath().normalize();
    private static final String PROCEDURES = "com.oltpbenchmark.benchmarks.smallbank.procedures.";

    @TempDir
    Path dir;

    /** A JDK that runs BenchBase (its jars are Java 23 bytecode), or none. */
    private static Optional<Path> jdk23() throws IOException {
        Path jvms = Path.of("/usr/lib/jvm");
        if (!Files.isDirectory(jvms)) return Optional.empty();
        try (Stream<Path> all = Files.list(jvms)) {
            return all.filter(j -> Files.isExecutable(j.resolve("bin/javac"))).filter(j -> {
                try {
                    String release = Files.readString(j.resolve("release"));
                    int at = release.indexOf("JAVA_VERSION=\"");
                    return at >= 0 && Integer.parseInt(release.substring(at + 14).split("[.\"]")[0]) >= 23;
                } catch (IOException | RuntimeException e) {
                    return false;
                }
            }).sorted().findFirst();
        }
    }

    private static String method(String cls, String... parameters) {
        StringBuilder ps = new StringBuilder("{\"name\": \"conn\", \"type\": \"java.sql.Connection\"}");
        for (int i = 0; i < parameters.length; i += 2)
            ps.append(", {\"name\": \"").append(parameters[i]).append("\", \"type\": \"").append(parameters[i + 1]).append("\"}");
        return "{\"class\": \"" + PROCEDURES + cls + "\", \"name\": \"run\", \"parameters\": [" + ps + "]}";
    }

    private static String rule(String name, String kind, String by, String method) {
        return "{\"name\": \"" + name + "\", \"class\": \"" + kind + "\", \"readOnly\": " + name.equals("Balance")
                + ", \"partitionBy\": [\"" + by + "\"], \"method\": " + method + "}";
    }

    private static int run(Path log, Path in, Path javaHome, List<String> command) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command).directory(in.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        if (javaHome != null) pb.environment().put("JAVA_HOME", javaHome.toString());
        Process p = pb.start();
        assertThat(p.waitFor(15, TimeUnit.MINUTES)).as("%s ends", command).isTrue();
        return p.exitValue();
    }

    private static String checksum(Path db, String table) throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT * FROM " + table + " ORDER BY 1")) {
            int columns = rs.getMetaData().getColumnCount();
            while (rs.next()) for (int i = 1; i <= columns; i++) md.update(String.valueOf(rs.getObject(i)).getBytes());
        }
        return HexFormat.of().formatHex(md.digest());
    }

    @Test
    void smallBankRunsUnmodifiedThroughItsOwnDriverOnThreeInstances() throws Exception {
        assumeTrue(Files.isRegularFile(SOURCE.resolve("pom.xml")), "BenchBase's source is not at " + SOURCE);
        Optional<Path> jdk = jdk23();
        assumeTrue(jdk.isPresent(), "BenchBase needs a JDK of version 23 or later under /usr/lib/jvm; there is none");

        // Build it as shipped (docs: ../shared/third-party/README.md), in a copy: the source is read-only.
        Path src = dir.resolve("benchbase");
        try (Stream<Path> files = Files.walk(SOURCE)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Path to = src.resolve(SOURCE.relativize(f).toString());
                if (Files.isDirectory(f)) Files.createDirectories(to);
                else Files.copy(f, to);
            }
        }
        int built = run(dir.resolve("build.log"), src, jdk.get(), List.of("mvn", "-B", "-q", "package", "-P", "sqlite",
                "-DskipTests", "-Dfmt.skip=true", "-Dmaven.compiler.release=23"));
        assertThat(built).as(Files.readString(dir.resolve("build.log"))).isZero();
        Path dist = Files.createDirectories(dir.resolve("dist"));
        assertThat(run(dir.resolve("untar.log"), dist, null, List.of("tar", "-xzf",
                src.resolve("target/benchbase-sqlite.tgz").toString()))).isZero();
        Path benchbase = dist.resolve("benchbase-sqlite");

        // Its own sample configuration, with the URL, scale and time its settings expose.
        String config = Files.readString(benchbase.resolve("config/sqlite/sample_smallbank_config.xml"))
                .replace("<url>jdbc:sqlite:smallbank.db</url>", "<url>jdbc:sqlite:" + dir.resolve("own.db") + "</url>")
                .replace("<scalefactor>0.01</scalefactor>", "<scalefactor>0.001</scalefactor>")
                .replace("<time>60</time>", "<time>5</time>");
        Files.writeString(dir.resolve("smallbank.xml"), config);
        String classification = "{\"transactions\": [\n"
                + String.join(",\n", List.of(
                rule("Amalgamate", "global", "custId0", method("Amalgamate", "custId0", "long", "custId1", "long")),
                rule("Balance", "local", "custName", method("Balance", "custName", "java.lang.String")),
                rule("DepositChecking", "global", "custName",
                        method("DepositChecking", "custName", "java.lang.String", "amount", "double")),
                rule("SendPayment", "global", "sendAcct",
                        method("SendPayment", "sendAcct", "long", "destAcct", "long", "amount", "double")),
                rule("TransactSavings", "global", "custName",
                        method("TransactSavings", "custName", "java.lang.String", "amount", "double")),
                rule("WriteCheck", "global", "custName",
                        method("WriteCheck", "custName", "java.lang.String", "amount", "double")))) + "]}\n";
        Files.writeString(dir.resolve("smallbank.json"), classification);
        Files.writeString(dir.resolve("attach.yaml"), "backend: sqlite\ninstances: 3\nclassification: smallbank.json\n");

        List<String> attach = new ArrayList<>(GyroProcesses.command(List.of("attach", "--config",
                dir.resolve("attach.yaml").toString(), "--", jdk.get().resolve("bin/java").toString(), "-jar",
                "benchbase.jar", "-b", "smallbank", "-c", dir.resolve("smallbank.xml").toString(), "--create=true",
                "--load=true", "--execute=true")));
        int status = run(dir.resolve("attach.log"), benchbase, null, attach);
        String out = Files.readString(dir.resolve("attach.log"), StandardCharsets.UTF_8);
        assertThat(status).as(out).isZero();
        assertThat(out.strip().lines().reduce((a, b) -> b).orElse("")).isEqualTo("attach: OK");
        assertThat(out).contains("Completed Transactions:");
        String errors = out.substring(out.indexOf("Unexpected SQL Errors:"));
        assertThat(errors.lines().skip(1).findFirst().orElse("")).as("BenchBase's unexpected SQL errors").contains("<EMPTY>");
        assertThat(out).containsPattern("gyro agent: SendPayment: [1-9][0-9]* call");

        Path instances = dir.resolve("gyro-attach/instances");
        for (String table : List.of("accounts", "savings", "checking")) {
            String first = checksum(dev.gyro.cluster.LocalCluster.databaseFile(instances, 0), table);
            for (int i = 1; i < 3; i++)
                assertThat(checksum(dev.gyro.cluster.LocalCluster.databaseFile(instances, i), table))
                        .as("table %s at instance %d", table, i).isEqualTo(first);
        }
    }
}
