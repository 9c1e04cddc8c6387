package dev.gyro.servers;

import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Ports handed out by one call are not handed out by the next before anything bound them, nor by another process
 * while the one that took them runs (test JVMs side by side once both started a server on one port).
 */
class FreePortsTest {

    @Test
    void successiveCallsNeverReturnAPortAgain() throws Exception {
        Set<Integer> seen = new HashSet<>();
        for (int call = 0; call < 300; call++) {
            List<Integer> ports = FreePorts.take(3);
            assertThat(ports).doesNotHaveDuplicates().allMatch(p -> p >= FreePorts.LOW && p < FreePorts.HIGH);
            for (int p : ports) assertThat(seen.add(p)).as("port %d handed out twice", p).isTrue();
        }
    }

    /**
     * Another JVM takes 200 ports and keeps running; this one then takes 3,000 of the 12,000: none of the other's.
     * Probing alone would hand out some 50 of them again (nothing is bound on them).
     */
    @Test
    void aPortAnotherProcessTookIsNotHandedOutWhileItRuns() throws Exception {
        Process other = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), Holder.class.getName(), "200").redirectErrorStream(true).start();
        try {
            Set<Integer> theirs = new HashSet<>();
            BufferedReader lines = new BufferedReader(new InputStreamReader(other.getInputStream(),
                    StandardCharsets.UTF_8));
            for (String line; (line = lines.readLine()) != null && !line.equals("holding"); )
                theirs.add(Integer.parseInt(line.strip()));
            assertThat(theirs).as("the other process's ports").hasSize(200);
            List<Integer> ours = FreePorts.take(3_000);
            assertThat(ours).as("ports the other process holds").doesNotContainAnyElementsOf(theirs);
        } finally {
            other.getOutputStream().close(); // it ends at the end of its input
            other.waitFor();
        }
    }

    /** Takes as many ports as its argument says, prints them and "holding", and runs until its input ends. */
    public static final class Holder {
        public static void main(String[] args) throws Exception {
            for (int p : FreePorts.take(Integer.parseInt(args[0]))) System.out.println(p);
            System.out.println("holding");
            System.out.flush();
            while (System.in.read() >= 0) {
                // until the test closes our input
            }
        }
    }
}
