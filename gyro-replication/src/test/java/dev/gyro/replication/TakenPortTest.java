package dev.gyro.replication;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A replica whose group-log port another program holds does not start, and says so; the process it runs in goes on
 * (Ratis would end it with System.exit, which Gyro turns off: it runs inside test JVMs and attached applications).
 */
class TakenPortTest {

    @TempDir
    Path dir;

    @Test
    void aTakenGroupLogPortFailsTheStartWithItsAddressAndTheProcessGoesOn() throws Exception {
        GroupSpec spec = Groups.spec(0, 3, Groups.WAIT);
        InetSocketAddress own = spec.replicas().get(0);
        List<String> databases = Groups.databases(dir, 3);
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(own);
            assertThatThrownBy(() -> GroupReplica.start(spec, 0, databases.get(0), dir.resolve("logs"),
                    new GroupSignal()))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("cannot start its group log on " + own)
                    .hasMessageContaining("Address already in use");
        }
        // still here: the start failed, the JVM did not exit; and with the port free the same replica starts
        try (GroupReplica r = GroupReplica.start(spec, 0, databases.get(0), dir.resolve("logs"), new GroupSignal())) {
            assertThat(r.replica()).isZero();
        }
    }
}
