package dev.gyro.apps;

import dev.gyro.app.Application;
import dev.gyro.app.Call;
import dev.gyro.app.ClientSession;
import dev.gyro.app.DirectExecutor;
import dev.gyro.app.Outcome;
import dev.gyro.app.Workload;
import dev.gyro.app.WorkloadOptions;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * Loads an application into one database and drives its workload there without Gyro: sessions take turns, one
 * call at a time, on one connection. What the tests of the SQL, the data generators and the audits run on.
 */
public final class Driver {

    /** Per transaction: OK, ABORTED, FAILED counts; and the first failures. */
    public record Counts(Map<String, long[]> byTransaction, List<String> failures, List<String> aborts) {
        public long total(Outcome.Status status) {
            return byTransaction.values().stream().mapToLong(c -> c[status.ordinal()]).sum();
        }
    }

    private Driver() {}

    public static void load(Application app, Connection c, int scale, long seed) throws SQLException {
        c.setAutoCommit(false);
        app.createSchema(c);
        app.load(c, scale, seed);
        c.commit();
    }

    public static Counts drive(Application app, Connection c, int scale, WorkloadOptions options, int sessions,
                               int calls, long seed) throws SQLException {
        Workload w = app.workload(scale, options);
        DirectExecutor exec = new DirectExecutor(app, c);
        List<ClientSession> ss = new ArrayList<>();
        List<Outcome> last = new ArrayList<>();
        for (int i = 0; i < sessions; i++) {
            ss.add(w.newSession(i, new SplittableRandom(seed * 31 + i)));
            last.add(null);
        }
        Map<String, long[]> counts = new TreeMap<>();
        List<String> failures = new ArrayList<>(), aborts = new ArrayList<>();
        long now = 1_700_000_000_000L;
        for (int n = 0; n < calls; n++) {
            int s = n % sessions;
            Call call = ss.get(s).next(last.get(s));
            Outcome o = exec.execute(call, now += 7, seed + n);
            counts.computeIfAbsent(call.transaction(), k -> new long[3])[o.status().ordinal()]++;
            if (o.status() == Outcome.Status.FAILED && failures.size() < 5) failures.add(call + ": " + o.message());
            if (o.status() == Outcome.Status.ABORTED && aborts.size() < 200) aborts.add(call + ": " + o.message());
            last.set(s, o);
        }
        return new Counts(counts, failures, aborts);
    }
}
