package dev.gyro.runtime;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WarnLimitTest {

    @Test
    void theFirstLineIsSaidThenOnePerIntervalCountingTheUnsaid() {
        AtomicLong now = new AtomicLong(1_000);
        WarnLimit limit = new WarnLimit(100, now::get);
        assertThat(limit.occurred()).isZero();
        for (int i = 0; i < 5; i++) assertThat(limit.occurred()).isEqualTo(-1);
        now.addAndGet(99);
        assertThat(limit.occurred()).isEqualTo(-1);
        now.addAndGet(1);
        assertThat(limit.occurred()).as("the six unsaid since the first line").isEqualTo(6);
        now.addAndGet(500);
        assertThat(limit.occurred()).as("a quiet interval: said at once, nothing unsaid").isZero();
        assertThat(WarnLimit.suffix(0)).isEmpty();
        assertThat(WarnLimit.suffix(6)).isEqualTo(" (and 6 more like it since the last such line)");
    }

    @Test
    void aClockThatWrapsDoesNotSilenceIt() {
        AtomicLong now = new AtomicLong(Long.MAX_VALUE - 10);
        WarnLimit limit = new WarnLimit(100, now::get);
        assertThat(limit.occurred()).isZero();
        now.addAndGet(50); // still before the next line is due
        assertThat(limit.occurred()).isEqualTo(-1);
        now.addAndGet(60); // wrapped past Long.MAX_VALUE, 110 after the first line
        assertThat(limit.occurred()).isEqualTo(1);
    }

    @Test
    void aNonPositiveIntervalIsRefused() {
        assertThatThrownBy(() -> new WarnLimit(0, System::nanoTime)).hasMessageContaining("positive");
    }
}
