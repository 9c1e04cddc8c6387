package dev.gyro.bench;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class MachineCpuTest {

    @Test
    void busyIsEverythingButIdleAndIoWaitAndGuestTimeIsNotCountedTwice() {
        // user nice system idle iowait irq softirq steal guest guest_nice
        MachineCpu c = MachineCpu.parse("cpu  100 5 20 800 40 3 2 30 50 0");
        assertThat(c.total()).isEqualTo(100 + 5 + 20 + 800 + 40 + 3 + 2 + 30);
        assertThat(c.busy()).isEqualTo(100 + 5 + 20 + 3 + 2 + 30); // the host's steal counts as busy
        // an older kernel's shorter line
        assertThat(MachineCpu.parse("cpu 1 2 3 4").busy()).isEqualTo(6);
    }

    @Test
    void theShareBetweenTwoReadings() {
        MachineCpu before = new MachineCpu(1_000, 10_000), after = new MachineCpu(1_900, 11_000);
        assertThat(after.busySince(before)).isCloseTo(0.9, within(1e-9));
        assertThat(before.busySince(before)).as("no time passed").isNull();
    }

    @Test
    void aLineThatIsNotTheAllCoresLineIsRefused() {
        assertThatThrownBy(() -> MachineCpu.parse("cpu0 1 2 3 4 5")).hasMessageContaining("not the all-cores line");
        assertThatThrownBy(() -> MachineCpu.parse("cpu 1 2 x 4 5")).hasMessageContaining("field 3");
        assertThatThrownBy(() -> MachineCpu.parse("cpu 1 -2 3 4 5")).hasMessageContaining("negative");
    }

    @Test
    void thisMachineIsReadWhereItIsLinux() {
        MachineCpu now = MachineCpu.read();
        if (!System.getProperty("os.name").toLowerCase().contains("linux")) {
            assertThat(now).isNull();
            return;
        }
        assertThat(now).isNotNull();
        assertThat(now.total()).isPositive().isGreaterThanOrEqualTo(now.busy());
    }
}
