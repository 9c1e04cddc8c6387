package dev.gyro.apps;

import dev.gyro.app.Classification;
import dev.gyro.app.Homing;
import dev.gyro.app.TransactionCatalog;
import dev.gyro.app.Workload;
import dev.gyro.app.WorkloadOptions;
import dev.gyro.protocol.PartitionMap;
import dev.gyro.protocol.Value;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Homed sessions ({@link Homing}) of every workload, run against a real SQLite database: the partitioning values
 * of what they send are home, except the ids the database assigned them and the keys a mix sends elsewhere on
 * purpose; the homed stream is deterministic for a seed; homed {@link Homing#ANYWHERE} is the unhomed stream.
 * Home is one instance of three under Gyro's own partition map, so strings (TPC-W's user names) are homed too.
 */
class HomedStreamsTest {

    static final PartitionMap MAP = PartitionMap.uniform(3);
    static final int HOME_INSTANCE = 1;
    static final Homing HOME = v -> MAP.instanceOf(Value.of(v)) == HOME_INSTANCE;
    static final int SESSIONS = 6, CALLS = 900;

    /**
     * Per application: the transactions whose results are ids the database assigned the session (the session must
     * use them, wherever they live), and the partitioning parameters a mix sends to another partition on purpose.
     */
    record Exceptions(Set<String> assigningTransactions, Set<String> elsewhereParameters) {}

    static final Map<String, Exceptions> EXCEPTIONS = Map.of(
            "micro", new Exceptions(Set.of(), Set.of()),
            // carts (createEmptyCart) and new customers' ids and user names (createNewCustomer) come from MAX + 1
            "tpcw", new Exceptions(Set.of("createEmptyCart", "createNewCustomer"), Set.of()),
            // auctions the user registered (registerItem); a user it registers it goes on as only when home
            "rubis", new Exceptions(Set.of("registerItem"), Set.of()),
            // TPC-C's 1% remote order lines and 15% remote payments pick another warehouse uniformly
            "tpcc", new Exceptions(Set.of(), Set.of("remoteWarehouse", "customerWarehouse")));

    static Stream<UnhomedStreamsTest.Case> cases() {
        return UnhomedStreamsTest.cases();
    }

    static Workload workload(UnhomedStreamsTest.Case c) {
        return c.app().workload(c.scale(), WorkloadOptions.of(c.options()));
    }

    /** How many partitioning values were checked, and how many of them were home. */
    record Tally(int checked, int home) {}

    /**
     * Every partitioning value the sessions sent, checked: home, or assigned by the database, or a parameter sent
     * elsewhere on purpose. With {@code strict} false only counts (for the unhomed stream).
     */
    static Tally tally(UnhomedStreamsTest.Case c, List<Transcripts.Step> steps, boolean strict) {
        Classification classification = c.app().classification();
        TransactionCatalog catalog = new TransactionCatalog(c.app().transactions());
        Exceptions ex = EXCEPTIONS.get(c.app().name());
        Set<Value> assigned = new HashSet<>();
        int checked = 0, home = 0;
        for (Transcripts.Step step : steps) {
            String tx = step.call().transaction();
            for (String name : classification.rule(tx).partitionBy()) {
                if (ex.elsewhereParameters().contains(name)) continue;
                Object value = step.call().parameters().get(catalog.get(tx).parameterIndex(name));
                checked++;
                if (HOME.owns(value)) home++;
                else if (strict)
                    assertThat(assigned).as("step %s: %s = %s is neither home (instance %d) nor an id the database "
                            + "assigned", step.line(), name, value, HOME_INSTANCE).contains(Value.of(value));
            }
            if (ex.assigningTransactions().contains(tx) && step.outcome().ok()) assigned.addAll(step.outcome().values());
        }
        return new Tally(checked, home);
    }

    @ParameterizedTest
    @MethodSource("cases")
    void homedSessionsSendHomeKeys(UnhomedStreamsTest.Case c, @TempDir Path dir) throws Exception {
        List<Transcripts.Step> homed = Transcripts.run(c.app(), c.scale(), workload(c), dir.resolve("h.db"), SESSIONS,
                CALLS, 5, (w, i, r) -> w.newSession(i, r, HOME));
        Tally t = tally(c, homed, true);
        assertThat(t.checked()).as("partitioning values sent").isGreaterThan(CALLS / 4);
        assertThat(t.home()).as("home values").isGreaterThan(t.checked() / 2);

        // The same check bites on the unhomed stream: there about one value in three is home.
        List<Transcripts.Step> unhomed = Transcripts.run(c.app(), c.scale(), workload(c), dir.resolve("u.db"), SESSIONS,
                CALLS, 5, Transcripts.PLAIN);
        Tally u = tally(c, unhomed, false);
        assertThat((double) u.home() / u.checked()).as("home share unhomed").isLessThan(0.6);
        assertThat((double) t.home() / t.checked()).as("home share homed")
                .isGreaterThan((double) u.home() / u.checked() + 0.3);
    }

    @ParameterizedTest
    @MethodSource("cases")
    void aHomedStreamIsDeterministicForASeed(UnhomedStreamsTest.Case c, @TempDir Path dir) throws Exception {
        Transcripts.Opener homed = (w, i, r) -> w.newSession(i, r, HOME);
        List<String> a = Transcripts.lines(Transcripts.run(c.app(), c.scale(), workload(c), dir.resolve("a.db"),
                SESSIONS, 300, 9, homed));
        List<String> b = Transcripts.lines(Transcripts.run(c.app(), c.scale(), workload(c), dir.resolve("b.db"),
                SESSIONS, 300, 9, homed));
        List<String> plain = Transcripts.lines(Transcripts.run(c.app(), c.scale(), workload(c), dir.resolve("p.db"),
                SESSIONS, 300, 9, Transcripts.PLAIN));
        assertThat(a).containsExactlyElementsOf(b);
        assertThat(a).isNotEqualTo(plain);
    }

    @ParameterizedTest
    @MethodSource("cases")
    void homedAnywhereIsTheUnhomedStream(UnhomedStreamsTest.Case c, @TempDir Path dir) throws Exception {
        List<String> anywhere = Transcripts.lines(Transcripts.run(c.app(), c.scale(), workload(c), dir.resolve("a.db"),
                SESSIONS, 300, 9, (w, i, r) -> w.newSession(i, r, Homing.ANYWHERE)));
        List<String> plain = Transcripts.lines(Transcripts.run(c.app(), c.scale(), workload(c), dir.resolve("p.db"),
                SESSIONS, 300, 9, Transcripts.PLAIN));
        assertThat(anywhere).containsExactlyElementsOf(plain);
    }
}
