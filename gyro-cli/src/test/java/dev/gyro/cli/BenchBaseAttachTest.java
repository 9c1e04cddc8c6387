package dev.gyro.cli;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * CMU BenchBase, built from its own unmodified source (a copy of the source the build names, read-only; docs/testing.md),
 * runs SmallBank and Voter through its own driver ({@code benchbase.jar -b BENCH --create --load --execute}) with
 * Gyro attached over three instances (docs/decisions/34-attaching.md): SmallBank on SQLite (one terminal, as
 * BenchBase needs there) and on PostgreSQL (two terminals, throwaway servers), Voter on PostgreSQL. Its report shows no
 * unexpected SQL error, and {@code gyro attach} ends with {@code attach: OK}: every instance applied the same global
 * requests, the recorded accesses show no read from a local request of another partition (the dynamic check of
 * Definition 1 agrees with the analyzer's classification), and the benchmark's audits, asked of the database as a
 * whole, hold (docs/attach.md, "Audits"). On SQLite every instance holds the same accounts, savings and checking. The
 * classification is the one {@code gyro analyze} writes for the kit's procedures (SmallBank: Balance local and
 * read-only, the five writers global; Voter: Vote local by phone number), naming each procedure's {@code run} method.
 * TPC-C, TATP and YCSB run the same way on both backends when asked ({@code -Dgyro.benchbase.more}).
 */
@Tag("slow")
@org.junit.jupiter.api.condition.EnabledIfSystemProperty(named = "gyro.test.long", matches = "true",
        disabledReason = "on request: -Dgyro.test.long=true (docs/testing.md): building BenchBase is 3-4 minutes of CPU,"
                + " beyond the suite's time bound")
class BenchBaseAttachTest {

    /** BenchBase's source: {@code -Dgyro.benchbase=DIR}, which the build sets (docs/testing.md, "CMU BenchBase"). */
    private static final Path SOURCE = Path.of(System.getProperty("gyro.benchbase", "benchbase")).toAbsolutePath()
            .normalize();
    private static final String PROCEDURES = "com.oltpbenchmark.benchmarks.smallbank.procedures.";

    /** Not JUnit's @TempDir (rwx------): the PostgreSQL servers run as the postgres user when the tests run as root. */
    private Path dir;

    @BeforeEach
    void directory() throws IOException {
        dir = Files.createTempDirectory("gyro-benchbase-test");
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    @AfterEach
    void cleanUp() throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        }
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
    void smallBankAndVoterRunUnmodifiedThroughTheirOwnDriverOnThreeInstances() throws Exception {
        assumeTrue(Files.isRegularFile(SOURCE.resolve("pom.xml")), "BenchBase's source is not at " + SOURCE);
        Optional<Path> jdk = AttachBenchmark.jdk23();
        assumeTrue(jdk.isPresent(), "BenchBase needs a JDK of version 23 or later under /usr/lib/jvm; there is none");

        // Build it as shipped (docs/testing.md, "CMU BenchBase"), in a copy: the source is read-only.
        Path src = dir.resolve("benchbase");
        AttachBenchmark.copy(SOURCE, src);
        assertThat(analyze(src, "smallbank")).contains("\"name\" : \"Balance.run\"", PROCEDURES + "SendPayment",
                "\"type\" : \"java.sql.Connection\"");
        assertThat(analyze(src, "voter")).contains("\"class\" : \"local\"", "phoneNumber");

        // one build with the drivers of both backends (two of the kit's own profiles): building it is most of this test
        Path sqlite = build(src, jdk.get(), "sqlite,postgres"), postgres = sqlite;
        String out = attach(sqlite, jdk.get(), "sqlite", "smallbank", SMALLBANK_AUDITS,
                "<url>jdbc:sqlite:smallbank.db</url>", "<url>jdbc:sqlite:" + dir.resolve("own.db") + "</url>",
                "<scalefactor>0.01</scalefactor>");
        assertThat(out).containsPattern("gyro agent: SendPayment.run: [1-9][0-9]* call");
        Path instances = dir.resolve("sqlite-smallbank/gyro-attach/instances");
        for (String table : List.of("accounts", "savings", "checking")) {
            String first = checksum(dev.gyro.cluster.LocalCluster.databaseFile(instances, 0), table);
            for (int i = 1; i < 3; i++)
                assertThat(checksum(dev.gyro.cluster.LocalCluster.databaseFile(instances, i), table))
                        .as("table %s at instance %d", table, i).isEqualTo(first);
        }
        // On PostgreSQL: throwaway servers; the configuration's own server (localhost:5432) is never reached. The
        // agent checks that every instance applied the same global requests (attach: OK).
        out = attach(postgres, jdk.get(), "postgres", "smallbank", SMALLBANK_AUDITS, "<terminals>1</terminals>",
                "<terminals>2</terminals>", "<scalefactor>1</scalefactor>");
        assertThat(out).containsPattern("gyro agent: SendPayment.run: [1-9][0-9]* call");
        // Voter: every vote a local request by phone number, its row inserted into a table without a primary key
        out = attach(postgres, jdk.get(), "postgres", "voter", VOTER_AUDITS, "<terminals>1</terminals>",
                "<terminals>2</terminals>", "<scalefactor>1</scalefactor>");
        java.util.regex.Matcher votes = java.util.regex.Pattern.compile("gyro agent: (Vote\\.)?run: [0-9]+ call\\(s\\):"
                + " ([0-9]+) committed as local requests, ([0-9]+) as global").matcher(out);
        assertThat(votes.find()).as(out).isTrue();
        long committed = Long.parseLong(votes.group(2)) + Long.parseLong(votes.group(3));
        java.util.regex.Matcher rows = java.util.regex.Pattern.compile(
                "gyro attach: audit votes: 0 before the first call, ([0-9]+) at exit").matcher(out);
        assertThat(rows.find()).as(out).isTrue();
        // a vote for no contestant, or over the phone's limit, commits without a row
        assertThat(Long.parseLong(rows.group(1))).as("votes recorded").isPositive().isLessThanOrEqualTo(committed);

        // More of the kit's benchmarks, with the dynamic check, when asked (docs/attach.md):
        // -Dgyro.benchbase.more=tpcc,tatp,ycsb (TPC-C at one warehouse with its consistency conditions, the others at
        // scale factor 0.1), on SQLite and PostgreSQL, or on the backends -Dgyro.benchbase.backends names (sqlite,
        // postgres, mariadb; SmallBank and Voter may be named there too, with their audits)
        java.util.Map<String, Path> builds = new java.util.HashMap<>(java.util.Map.of("sqlite", sqlite, "postgres", postgres));
        for (String more : System.getProperty("gyro.benchbase.more", "").split(",")) {
            if (more.isBlank()) continue;
            String bench = more.strip();
            analyze(src, bench);
            String audits = switch (bench) {
                case "tpcc" -> TPCC_AUDITS;
                case "smallbank" -> SMALLBANK_AUDITS;
                case "voter" -> VOTER_AUDITS;
                default -> "";
            };
            String factor = bench.equals("tpcc") || bench.equals("voter") ? "1" : bench.equals("wikipedia") ? "0.01" : "0.1";
            for (String backend : System.getProperty("gyro.benchbase.backends", "sqlite,postgres").split(",")) {
                String profile = backend.strip();
                Path build = builds.get(profile);
                if (build == null) builds.put(profile, build = build(src, jdk.get(), profile));
                String config = Files.readString(build.resolve("config/" + profile + "/sample_" + bench + "_config.xml"));
                String terminals = config.replaceAll("(?s).*(<terminals>[^<]*</terminals>).*", "$1");
                String scale = config.replaceAll("(?s).*(<scalefactor>[^<]*</scalefactor>).*", "$1");
                attach(build, jdk.get(), profile, bench, audits, terminals,
                        profile.equals("sqlite") ? "<terminals>1</terminals>" : "<terminals>2</terminals>", scale, factor);
            }
        }
    }

    /**
     * SmallBank's rows: every account keeps one savings and one checking row; the money is shown before and after, not
     * checked: the kit's Amalgamate does not conserve it (it zeroes the first customer's checking and takes the first
     * customer's savings plus the second's checking from the second customer's savings), on any database.
     */
    private static final String SMALLBANK_AUDITS = """
            audits:
              - name: accounts without one savings and one checking row
                sql: SELECT COUNT(*) FROM accounts a WHERE (SELECT COUNT(*) FROM savings s WHERE s.custid = a.custid) <> 1 OR (SELECT COUNT(*) FROM checking c WHERE c.custid = a.custid) <> 1
                expect: 0
              - name: money
                sql: SELECT (SELECT SUM(bal) FROM savings) + (SELECT SUM(bal) FROM checking)
            """;

    /** Voter's votes: at most one row per committed vote (compared with the agent's figures), each for a contestant. */
    private static final String VOTER_AUDITS = """
            audits:
              - name: votes
                sql: SELECT COUNT(*) FROM votes
              - name: votes for no contestant
                sql: SELECT COUNT(*) FROM votes v WHERE NOT EXISTS (SELECT 1 FROM contestants c WHERE c.contestant_number = v.contestant_number)
                expect: 0
            """;

    /** TPC-C's consistency conditions 1 to 4 (TPC-C specification, clause 3.3.2), each counting the rows that break it. */
    private static final String TPCC_AUDITS = """
            audits:
              - name: W_YTD = sum(D_YTD)
                sql: SELECT COUNT(*) FROM warehouse w WHERE ABS(w.w_ytd - (SELECT SUM(d.d_ytd) FROM district d WHERE d.d_w_id = w.w_id)) > 0.005
                expect: 0
              - name: D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)
                sql: SELECT COUNT(*) FROM district d WHERE d.d_next_o_id - 1 <> (SELECT MAX(o.o_id) FROM oorder o WHERE o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id) OR d.d_next_o_id - 1 <> (SELECT MAX(n.no_o_id) FROM new_order n WHERE n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id)
                expect: 0
              - name: max(NO_O_ID) - min(NO_O_ID) + 1 = count(NEW_ORDER)
                sql: SELECT COUNT(*) FROM (SELECT MAX(no_o_id) - MIN(no_o_id) + 1 AS span, COUNT(*) AS n FROM new_order GROUP BY no_w_id, no_d_id) x WHERE span <> n
                expect: 0
              - name: sum(O_OL_CNT) = count(ORDER_LINE)
                sql: SELECT COUNT(*) FROM (SELECT o_w_id, o_d_id, SUM(o_ol_cnt) AS lines FROM oorder GROUP BY o_w_id, o_d_id) o WHERE o.lines <> (SELECT COUNT(*) FROM order_line ol WHERE ol.ol_w_id = o.o_w_id AND ol.ol_d_id = o.o_d_id)
                expect: 0
            """;

    /**
     * The classification {@code gyro analyze} writes for one of the kit's benchmarks (its procedures, with the kit's
     * statement and procedure classes, its constants and its DDL beside them), naming each procedure's run method.
     */
    private String analyze(Path src, String benchmark) throws Exception {
        Path json = dir.resolve(benchmark + ".json");
        List<String> analyze = GyroProcesses.command(AttachBenchmark.analyzeArguments(src, benchmark, json));
        Path log = dir.resolve("analyze-" + benchmark + ".log");
        assertThat(run(log, dir, null, analyze)).as(Files.readString(log)).isZero();
        return Files.readString(json);
    }

    /**
     * BenchBase built with {@code profiles} (the kit's, comma-separated: their JDBC drivers all in its {@code lib}; the
     * archive is named after the last, whose {@code classifier} wins) and unpacked: its folder.
     */
    private Path build(Path src, Path jdk, String profiles) throws Exception {
        String named = profiles.substring(profiles.lastIndexOf(',') + 1);
        Path at = Files.createDirectories(dir.resolve("build-" + named));
        int built = run(at.resolve("build.log"), src, jdk, List.of("mvn", "-B", "-q", "package", "-P", profiles,
                "-DskipTests", "-Dfmt.skip=true", "-Dmaven.compiler.release=23"));
        assertThat(built).as(Files.readString(at.resolve("build.log"))).isZero();
        assertThat(run(at.resolve("untar.log"), at, null, List.of("tar", "-xzf",
                src.resolve("target/benchbase-" + named + ".tgz").toString()))).isZero();
        return at.resolve("benchbase-" + named);
    }

    /**
     * Runs {@code benchmark} with the profile's sample configuration (the scale factor {@code scale} set to 0.001, the
     * time to 5 s, {@code from} replaced by {@code to}) attached over three instances of that backend, with the
     * classification {@code gyro analyze} wrote, the dynamic check and {@code audits} (YAML); checks what BenchBase and
     * gyro attach report; BenchBase's output.
     */
    private String attach(Path benchbase, Path jdk, String profile, String benchmark, String audits, String from,
                          String to, String scale) throws Exception {
        return attach(benchbase, jdk, profile, benchmark, audits, from, to, scale, "0.001");
    }

    private String attach(Path benchbase, Path jdk, String profile, String benchmark, String audits, String from,
                          String to, String scale, String factor) throws Exception {
        Path at = Files.createDirectories(dir.resolve(profile + "-" + benchmark));
        String config = Files.readString(benchbase.resolve("config/" + profile + "/sample_" + benchmark + "_config.xml"));
        assertThat(config).contains(from, scale, "<time>60</time>");
        Files.writeString(at.resolve("config.xml"), config.replace(from, to)
                .replace(scale, "<scalefactor>" + factor + "</scalefactor>").replace("<time>60</time>", "<time>5</time>"));
        Files.copy(dir.resolve(benchmark + ".json"), at.resolve("classification.json"));
        Files.writeString(at.resolve("attach.yaml"), "backend: " + profile + "\ninstances: 3\nclassification:"
                + " classification.json\ncheck: true\n" + audits);

        List<String> attach = new ArrayList<>(GyroProcesses.command(List.of("attach", "--config",
                at.resolve("attach.yaml").toString(), "--", jdk.resolve("bin/java").toString(), "-jar",
                "benchbase.jar", "-b", benchmark, "-c", at.resolve("config.xml").toString(), "--create=true",
                "--load=true", "--execute=true")));
        int status = run(at.resolve("attach.log"), benchbase, null, attach);
        String out = Files.readString(at.resolve("attach.log"), StandardCharsets.UTF_8);
        String what = benchmark + " on " + profile;
        assertThat(status).as(what + ":\n" + out).isZero();
        assertThat(out.strip().lines().reduce((a, b) -> b).orElse("")).as(what).isEqualTo("attach: OK");
        assertThat(out).as(what).contains("Completed Transactions:");
        assertThat(out).as(what).contains("none read from a local request of another partition (Definition 1)");
        String errors = out.substring(out.indexOf("Unexpected SQL Errors:"));
        assertThat(errors.lines().skip(1).findFirst().orElse("")).as("BenchBase's unexpected SQL errors, " + what
                + "; what was said of SQL errors:\n" + String.join("\n", out.lines().filter(l -> !l.strip().startsWith("at ")
                && (l.contains("SQLException") || l.contains("gyro:") || l.contains("SQLState")))
                .distinct().limit(20).toList())).contains("<EMPTY>");
        return out;
    }
}
