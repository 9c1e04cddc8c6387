package dev.gyro.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command that starts a {@code gyro} process of the tests' own (an instance killed and restarted, a replica whose
 * leader is killed): this JVM's java on this test's class path. The processes live for seconds, so they are started
 * as short-lived JVMs are best started on a small machine: the quick JIT compiler only and the serial collector, which
 * spend a fraction of the CPU that the optimizing compiler's and G1's threads would while they warm up (the suite
 * runs many such processes at once; what they test does not depend on how their code is compiled;
 * docs/decisions/31-test-jvms.md).
 */
final class GyroProcesses {

    private GyroProcesses() {}

    /** {@code java <JVM options> -cp <class path> <systemProperties> dev.gyro.cli.Gyro}: add the arguments. */
    static List<String> command(String... systemProperties) {
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", cp));
        cmd.addAll(List.of(systemProperties));
        cmd.add(Gyro.class.getName());
        return cmd;
    }

    /**
     * Starts {@code pb} (its standard error merged into its output) and reads what it says until a line that begins
     * with {@code startedLine}; then copies the rest to {@code log} (appended) as it comes, in the background, and
     * notes there when the process exits. Fails when the process ended before it said so.
     */
    static Process start(ProcessBuilder pb, String startedLine, java.nio.file.Path log) throws java.io.IOException {
        pb.redirectErrorStream(true);
        Process p = pb.start();
        java.io.BufferedReader out = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream()));
        StringBuilder seen = new StringBuilder();
        for (String line; (line = out.readLine()) != null; ) {
            seen.append(line).append('\n');
            if (line.startsWith(startedLine)) break;
        }
        org.assertj.core.api.Assertions.assertThat(p.isAlive()).as("'" + startedLine + "' started; it said:\n" + seen)
                .isTrue();
        Thread drain = new Thread(() -> {
            try (var w = java.nio.file.Files.newBufferedWriter(log, java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.APPEND)) {
                for (String line; (line = out.readLine()) != null; ) w.write(line + "\n");
            } catch (Exception ignored) {
                // the process was killed
            }
        });
        drain.setDaemon(true);
        drain.start();
        p.onExit().thenAccept(x -> { // a process that ends by itself is a failure its log must show
            try {
                java.nio.file.Files.writeString(log, "-- process " + x.pid() + " exited with status " + x.exitValue()
                        + "\n", java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
            } catch (java.io.IOException ignored) {
                // the folder is gone
            }
        });
        return p;
    }

    /** {@link #command} followed by {@code args}. */
    static List<String> command(List<String> args) {
        List<String> cmd = command();
        cmd.addAll(args);
        return cmd;
    }
}
