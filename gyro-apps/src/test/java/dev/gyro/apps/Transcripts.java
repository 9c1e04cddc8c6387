package dev.gyro.apps;

import dev.gyro.app.Application;
import dev.gyro.app.Call;
import dev.gyro.app.ClientSession;
import dev.gyro.app.DirectExecutor;
import dev.gyro.app.Outcome;
import dev.gyro.app.Workload;

import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * What a workload's sessions send, call by call, against a real database: the application is loaded into a
 * SQLite file and every call runs there (so a session learns real ids and search results), sessions taking turns.
 * One seed and one way of opening sessions give one transcript.
 */
public final class Transcripts {

    /** One call a session sent and what became of it. */
    public record Step(int session, Call call, Outcome outcome) {
        /** The call as a transcript line: session, transaction and parameters, think time, interaction. */
        public String line() {
            return session + " " + call + " think=" + call.thinkMillis() + " [" + call.interaction() + "]";
        }
    }

    /** Opens session {@code index} of a workload with its random source. */
    @FunctionalInterface
    public interface Opener {
        ClientSession open(Workload workload, int index, SplittableRandom random);
    }

    /** The two-argument {@link Workload#newSession}: what every driver used before homing existed. */
    public static final Opener PLAIN = Workload::newSession;

    private Transcripts() {}

    public static List<Step> run(Application app, int scale, Workload workload, Path dbFile, int sessions, int calls,
                                 long seed, Opener opener) throws Exception {
        try (Connection c = Databases.sqlite(dbFile)) {
            Driver.load(app, c, scale, seed);
            DirectExecutor exec = new DirectExecutor(app, c);
            List<ClientSession> ss = new ArrayList<>();
            List<Outcome> last = new ArrayList<>();
            for (int i = 0; i < sessions; i++) {
                ss.add(opener.open(workload, i, new SplittableRandom(seed * 31 + i)));
                last.add(null);
            }
            List<Step> steps = new ArrayList<>();
            long now = 1_700_000_000_000L;
            for (int n = 0; n < calls; n++) {
                int s = n % sessions;
                Call call = ss.get(s).next(last.get(s));
                Outcome o = exec.execute(call, now += 7, seed + n);
                steps.add(new Step(s, call, o));
                last.set(s, o);
            }
            return steps;
        }
    }

    public static List<String> lines(List<Step> steps) {
        return steps.stream().map(Step::line).toList();
    }
}
