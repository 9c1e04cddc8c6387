package dev.gyro.bench;

import dev.gyro.app.WorkloadOptions;
import dev.gyro.apps.rubis.Rubis;
import dev.gyro.apps.tpcc.Tpcc;
import dev.gyro.apps.tpcw.Tpcw;
import dev.gyro.check.AccessLog;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dynamic check of Definition 1 on the benchmark applications' own classifications (written by hand, and
 * where the analyzer is more conservative, explained in gyro-analyzer/TABLE-I.md): while each mix runs on three
 * instances, every request's reads and writes are recorded, and no request may read a row that a local request
 * of another partition wrote.
 */
@Tag("slow")
class ClassificationCheckTest {

    static void assertNoReadFromOtherPartitions(ClusterBenchmark.Spec spec) throws Exception {
        AccessLog accesses = new AccessLog();
        ClusterBenchmark.Report report = ClusterBenchmark.run(spec, new ClusterBenchmark.Listener() {}, accesses);
        assertThat(report.problems()).as(spec.app().name()).isEmpty();
        assertThat(accesses.size()).as("recorded accesses").isGreaterThan(20);
    }

    @Test
    void tpcwOrderingMix(@TempDir Path dir) throws Exception {
        assertNoReadFromOtherPartitions((new ClusterBenchmark.Spec(new Tpcw(new Tpcw.Size(300, 400)), dir, 3, 1, 5, 8,
                Bounded.AT_MOST, WorkloadOptions.of(Map.of("mix", "ordering")))).bounded(Bounded.CALLS));
    }

    @Test
    void rubisBiddingMix(@TempDir Path dir) throws Exception {
        assertNoReadFromOtherPartitions((new ClusterBenchmark.Spec(new Rubis(new Rubis.Size(300, 200, 100)), dir, 3, 1,
                7, 10, Bounded.AT_MOST, WorkloadOptions.NONE)).bounded(Bounded.CALLS));
    }

    @Test
    void tpccWithRemoteWarehouses(@TempDir Path dir) throws Exception {
        assertNoReadFromOtherPartitions((new ClusterBenchmark.Spec(new Tpcc(new Tpcc.Size(500, 20)), dir, 3, 6, 9, 12,
                Bounded.AT_MOST, WorkloadOptions.of(Map.of("remote-lines", "20", "remote-payments", "40")))).bounded(Bounded.CALLS));
    }
}
