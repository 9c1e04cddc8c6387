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

    /** {@link #command} followed by {@code args}. */
    static List<String> command(List<String> args) {
        List<String> cmd = command();
        cmd.addAll(args);
        return cmd;
    }
}
