package dev.gyro.bench;

import dev.gyro.app.Call;
import dev.gyro.app.Classification;
import dev.gyro.app.Kind;
import dev.gyro.app.Outcome;
import dev.gyro.apps.micro.Micro;
import dev.gyro.cluster.Backend;
import dev.gyro.emulation.Capacity;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The systems under test run the same application code; every request's transaction passes through its database
 * instance's emulated server exactly once (counted), whichever system runs it.
 */
class SystemsTest {

    static List<Call> calls() {
        List<Call> calls = new ArrayList<>();
        for (int i = 1; i <= 12; i++) {
            calls.add(Call.of("localOp", (long) i, 1 + i % 3, 0));
            if (i % 3 == 0) calls.add(Call.of("globalOp", (long) i, 1 + i % 5, 0));
        }
        return calls;
    }

    static void everyCallIsServedOnce(SystemUnderTest system, Path dir, int databases, String globalClass)
            throws Exception {
        List<Call> calls = calls();
        try (SystemUnderTest.Deployment d = system.deploy(new SystemUnderTest.Setup(new Micro(), dir, 3, 1, 7,
                Capacity.of(2, 1), Backend.SQLITE))) {
            assertThat(d.databases()).isEqualTo(databases);
            Target.Channel channel = d.target().open();
            for (Call call : calls) {
                Target.Result r = channel.execute(call);
                assertThat(r.outcome().status()).as(call.toString()).isEqualTo(Outcome.Status.OK);
                if (call.transaction().equals("globalOp")) assertThat(r.executedAs()).isEqualTo("global");
                else assertThat(r.executedAs()).isEqualTo(globalClass);
            }
            assertThat(d.settleAndCheck()).isEmpty();
            assertThat(d.served()).hasSize(databases);
            assertThat(d.served().stream().mapToLong(Long::longValue).sum()).isEqualTo(calls.size());
        }
    }

    @Test
    void gyroServesEachRequestOnceAtTheInstanceThatRunsIt(@TempDir Path dir) throws Exception {
        everyCallIsServedOnce(Systems.gyro(), dir, 3, "local");
    }

    @Test
    void readOnlyBaselineRunsEveryWriteAsGlobal(@TempDir Path dir) throws Exception {
        everyCallIsServedOnce(Systems.readOnly(), dir, 3, "global");
    }

    @Test
    void centralizedServesEveryRequestOnOneDatabase(@TempDir Path dir) throws Exception {
        everyCallIsServedOnce(Systems.centralized(), dir, 1, "local");
    }

    @Test
    void readOnlyClassificationKeepsOnlyReadOnlyTransactionsLocal() {
        Classification c = Systems.readOnlyClassification(new Micro().classification());
        assertThat(c.rule("localOp").kind()).isEqualTo(Kind.GLOBAL);
        assertThat(c.rule("globalOp").kind()).isEqualTo(Kind.GLOBAL);
        assertThat(c.rule("voidLocal").kind()).isEqualTo(Kind.LOCAL);
        assertThat(c.rule("voidGlobal").kind()).isEqualTo(Kind.LOCAL); // read-only, so local in this baseline
        assertThat(c.rule("voidGlobal").partitionBy()).containsExactly("partition");
    }
}
