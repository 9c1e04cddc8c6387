package dev.gyro.servers;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** Ports handed out by one call are not handed out by the next before anything bound them. */
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
}
