package dev.gyro.apps;

import dev.gyro.app.Application;
import dev.gyro.app.WorkloadOptions;
import dev.gyro.apps.micro.Micro;
import dev.gyro.apps.rubis.Rubis;
import dev.gyro.apps.tpcc.Tpcc;
import dev.gyro.apps.tpcw.Tpcw;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The request streams of the workloads, unhomed, for one seed, pinned by golden transcripts recorded before homing
 * was added ({@code src/test/resources/dev/gyro/apps/streams}): adding a homed path to a workload must not change
 * one call, one parameter or one think time of what its sessions send when nothing is homed, so results measured
 * before and after stay comparable. Run with {@code -Dgyro.streams.record=true} to write the transcripts anew (only
 * when a workload is meant to change).
 */
class UnhomedStreamsTest {

    /** A workload to pin: the application, its scale and options. */
    record Case(String name, Application app, int scale, Map<String, String> options) {
        @Override
        public String toString() {
            return name;
        }
    }

    static final int SESSIONS = 4, CALLS = 240;
    static final long SEED = 11;

    static Stream<Case> cases() {
        return Stream.of(
                new Case("micro", new Micro(), 1, Map.of("local", "90", "service-ms", "0")),
                new Case("tpcw-shopping", new Tpcw(new Tpcw.Size(200, 300)), 1, Map.of()),
                new Case("tpcw-ordering", new Tpcw(new Tpcw.Size(200, 300)), 1, Map.of("mix", "ordering", "think-ms", "7")),
                new Case("rubis-bidding", new Rubis(new Rubis.Size(200, 150, 100)), 1, Map.of("think-ms", "7")),
                new Case("tpcc", new Tpcc(new Tpcc.Size(500, 20)), 6, Map.of("remote-lines", "20", "remote-payments", "40")));
    }

    @ParameterizedTest
    @MethodSource("cases")
    void theUnhomedStreamIsTheRecordedOne(Case c, @TempDir Path dir) throws Exception {
        List<String> lines = Transcripts.lines(Transcripts.run(c.app(), c.scale(),
                c.app().workload(c.scale(), WorkloadOptions.of(c.options())), dir.resolve("t.db"), SESSIONS, CALLS,
                SEED, Transcripts.PLAIN));
        String resource = "streams/" + c.name() + ".txt";
        if (Boolean.getBoolean("gyro.streams.record")) {
            Path out = Path.of("src/test/resources/dev/gyro/apps").resolve(resource);
            Files.createDirectories(out.getParent());
            Files.write(out, lines, StandardCharsets.UTF_8);
            return;
        }
        List<String> recorded;
        try (InputStream in = UnhomedStreamsTest.class.getResourceAsStream(resource)) {
            assertThat(in).as("golden transcript " + resource).isNotNull();
            recorded = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        }
        assertThat(lines).as(c.name() + ", seed " + SEED).containsExactlyElementsOf(recorded);
    }
}
