package dev.gyro.replication;

import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A group's timeouts (docs/decisions/22-group-log.md, "Ratis settings"): the defaults, and bad values refused. */
class GroupTimeoutsTest {

    @Test
    void theDefaultsAreAGroupsUnlessItSetsOthers() {
        GroupSpec spec = GroupSpec.of("c", 0, List.of(new InetSocketAddress("127.0.0.1", 1)),
                dev.gyro.wire.Transport.insecure());
        assertThat(spec.timeouts()).isEqualTo(GroupTimeouts.DEFAULT);
        assertThat(GroupTimeouts.DEFAULT.electionMin()).isEqualTo(Duration.ofMillis(500));
        assertThat(GroupTimeouts.DEFAULT.electionMax()).isEqualTo(Duration.ofMillis(1000));
        assertThat(GroupTimeouts.DEFAULT.heartbeat()).isEqualTo(Duration.ofMillis(250));
        GroupSpec shorter = spec.withCommitTimeout(Duration.ofSeconds(2));
        assertThat(shorter.commitTimeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(shorter.timeouts().electionMin()).isEqualTo(GroupTimeouts.DEFAULT.electionMin());
    }

    @Test
    void badTimeoutsAreRefusedNamingTheSetting() {
        GroupTimeouts d = GroupTimeouts.DEFAULT;
        assertThatThrownBy(() -> d.withCommit(Duration.ZERO)).hasMessageContaining("commit");
        assertThatThrownBy(() -> d.withElection(Duration.ofMillis(-1), Duration.ofMillis(10)))
                .hasMessageContaining("electionMin");
        assertThatThrownBy(() -> d.withElection(Duration.ofMillis(800), Duration.ofMillis(800)))
                .hasMessageContaining("min < max");
        assertThatThrownBy(() -> new GroupTimeouts(d.commit(), d.electionMin(), d.electionMax(), Duration.ZERO))
                .hasMessageContaining("request");
    }
}
