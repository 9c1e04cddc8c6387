package dev.gyro.cli;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The demo's contract: checks and figures printed, exit 0 and a last line starting with "demo: OK". */
@Tag("slow")
class DemoCommandTest {

    @TempDir
    Path dir;

    @Test
    void shortDemoPassesEveryCheck() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream saved = System.out;
        int exit;
        try {
            System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
            exit = Gyro.commandLine().execute("demo", "--instances", "3", "--clients", "4", "--duration", "3",
                    "--dir", dir.resolve("data").toString());
        } finally {
            System.setOut(saved);
        }
        String out = bytes.toString(StandardCharsets.UTF_8);
        String[] lines = out.strip().split("\n");
        assertThat(lines[lines.length - 1]).as(out).startsWith("demo: OK");
        assertThat(exit).isZero();
        assertThat(out).contains("ITEMS").contains("ORDERS").contains("all hold on every instance")
                .containsPattern("local\\s+\\d+").containsPattern("global\\s+\\d+");
    }

    /**
     * Three groups of three replicas with leaders killed during the run: a line 'failovers: N' with N at least 2, every
     * group's replicas equal, the invariants, and the last line 'demo: OK'.
     */
    @Test
    void replicatedDemoWithChaosSurvivesItsFailovers() {
        Run run = demo("--replicas", "3", "--chaos", "--clients", "4", "--duration", "12", "--dir",
                dir.resolve("data").toString());
        String[] lines = run.out().strip().split("\n");
        assertThat(lines[lines.length - 1]).as(run.out()).startsWith("demo: OK");
        assertThat(run.exit()).isZero();
        assertThat(run.out()).containsPattern("failovers: [2-9]").containsPattern("group 0: \\d+ tables on 3 replicas: equal")
                .contains("all hold on every group");
    }

    /**
     * --grow (docs/decisions/44-ring-changes.md): a fourth instance joins a third into the run and takes a fair share
     * of the buckets, instance 0 leaves two thirds into it; the members' replicas equal, the invariants, 'demo: OK'.
     */
    @Test
    void aDemoThatGrowsAndShrinksItsRingPassesEveryCheck() {
        Run run = demo("--grow", "--clients", "6", "--duration", "6", "--dir", dir.resolve("data").toString());
        String[] lines = run.out().strip().split("\n");
        assertThat(lines[lines.length - 1]).as(run.out()).startsWith("demo: OK").contains("one instance joined, one left");
        assertThat(run.exit()).isZero();
        assertThat(run.out()).contains("ring change: instance 3 joins the ring").contains("instance 0 left the ring")
                .contains("instance 0 (left)").contains("all hold on every instance")
                .containsPattern("ring change: OK after \\d+ ms: map version \\d+: instance 0 64 buckets");
    }

    @Test
    void chaosNeedsGroupsThatSurviveALoss() {
        Run run = demo("--chaos", "--dir", dir.toString());
        assertThat(run.exit()).isNotZero();
        assertThat(run.out().strip()).startsWith("demo: FAILED").contains("--replicas 3");
    }

    record Run(int exit, String out) {}

    /** The demo with {@code args}, what it printed, and its exit status. */
    static Run demo(String... args) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream saved = System.out;
        try {
            System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
            String[] all = new String[args.length + 1];
            all[0] = "demo";
            System.arraycopy(args, 0, all, 1, args.length);
            int exit = Gyro.commandLine().execute(all);
            return new Run(exit, bytes.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(saved);
        }
    }

    @Test
    void badOptionsFailWithAReason() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream saved = System.out;
        int exit;
        try {
            System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
            exit = Gyro.commandLine().execute("demo", "--instances", "0", "--dir", dir.toString());
        } finally {
            System.setOut(saved);
        }
        assertThat(exit).isNotZero();
        assertThat(bytes.toString(StandardCharsets.UTF_8).strip()).startsWith("demo: FAILED").contains("--instances");
    }
}
