package dev.gyro.bench;

import dev.gyro.app.Application;
import dev.gyro.app.Classification;
import dev.gyro.app.Workload;
import dev.gyro.app.WorkloadOptions;
import dev.gyro.cluster.Backend;
import dev.gyro.cluster.LocalCluster;
import dev.gyro.check.AccessLog;
import dev.gyro.check.ReadFromChecker;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntConsumer;

/**
 * One benchmark run of an application on a {@link LocalCluster} (N instances in this JVM over N SQLite files): load
 * every database, start the ring, drive the workload, wait until the ring is quiet, then check replicas and the
 * application's conditions.
 */
public final class ClusterBenchmark {

    /**
     * @param dir       where the SQLite files go (must not hold another application's databases)
     * @param instances ring size
     * @param scale     the application's scale unit ({@link Application#describeScale})
     * @param seed      seeds the data and the sessions
     */
    public record Spec(Application app, Path dir, int instances, int scale, long seed, int sessions,
                       Duration duration, WorkloadOptions options, Backend backend, long calls) {

        /** Runs for {@code duration}. */
        public Spec(Application app, Path dir, int instances, int scale, long seed, int sessions, Duration duration,
                    WorkloadOptions options, Backend backend) {
            this(app, dir, instances, scale, seed, sessions, duration, options, backend, 0);
        }

        /** On SQLite, the embedded default. */
        public Spec(Application app, Path dir, int instances, int scale, long seed, int sessions, Duration duration,
                    WorkloadOptions options) {
            this(app, dir, instances, scale, seed, sessions, duration, options, Backend.SQLITE);
        }

        public Spec on(Backend other) {
            return new Spec(app, dir, instances, scale, seed, sessions, duration, options, other, calls);
        }

        /**
         * The same run, ended once {@code calls} calls were made ({@link WorkloadRunner.Settings#calls}); its
         * duration becomes the most it may last.
         */
        public Spec bounded(long calls) {
            return new Spec(app, dir, instances, scale, seed, sessions, duration, options, backend, calls);
        }

        WorkloadRunner.Settings settings() {
            return calls > 0 ? WorkloadRunner.Settings.calls(sessions, calls, duration, seed)
                    : new WorkloadRunner.Settings(sessions, duration, seed);
        }
    }

    /** The run's figures and the checks' verdict; {@code problems} lists everything that went wrong. */
    public record Report(Spec spec, String workload, WorkloadRunner.Result run, Checks.Result checks,
                         List<String> problems) {
        public boolean ok() {
            return problems.isEmpty();
        }
    }

    /** Told about each phase: loading (databases done), the workload, the checks. */
    public interface Listener {
        default void loaded(int databases, int of) {}
        default void started(List<String> addresses, String workload) {}
        /** Where each instance serves its metrics and live view (docs/decisions/18-watching.md), once started. */
        default void watching(List<String> httpUrls) {}
        default void running(double elapsed, double total, long completed) {}
        default void finished(WorkloadRunner.Result result) {}
    }

    private ClusterBenchmark() {}

    public static Report run(Spec spec, Listener listener) throws Exception {
        return run(spec, listener, null);
    }

    /**
     * As {@link #run(Spec, Listener)}, and when {@code accesses} is not null every instance records what each request
     * reads and writes into it, and each read from a local request of another partition (a breach of the paper's
     * Definition 1, that is, a wrong classification) is a problem of the run.
     */
    public static Report run(Spec spec, Listener listener, AccessLog accesses) throws Exception {
        return run(spec, listener, accesses, null);
    }

    /**
     * As {@link #run(Spec, Listener, AccessLog)}, the instances routing by {@code classification} instead of the
     * application's own when it is not null (a classification {@code gyro analyze} wrote, say, checked dynamically).
     */
    public static Report run(Spec spec, Listener listener, AccessLog accesses, Classification classification)
            throws Exception {
        Workload workload = spec.app().workload(spec.scale(), spec.options()); // validate options before loading
        IntConsumer loaded = n -> listener.loaded(n, spec.instances());
        try (LocalCluster cluster = LocalCluster.create(spec.backend(), spec.dir(), spec.app(), spec.instances(),
                spec.scale(), spec.seed(), loaded)) {
            if (classification != null) cluster.withClassification(classification);
            cluster.withHttp().startAll();
            List<String> http = new java.util.ArrayList<>();
            for (int i = 0; i < cluster.size(); i++) http.add(cluster.instance(i).httpUrl());
            listener.watching(http);
            if (accesses != null) for (int i = 0; i < cluster.size(); i++) cluster.instance(i).observeRequests(accesses);
            listener.started(cluster.addresses(), workload.describe());
            WorkloadRunner.Result result;
            try (GyroTarget target = new GyroTarget(cluster.addresses())) {
                result = WorkloadRunner.run(workload, target,
                        spec.settings(),
                        listener::running);
            }
            listener.finished(result);
            List<String> problems = new ArrayList<>();
            if (!cluster.awaitQuiet(60_000)) problems.add("the ring did not become quiet within 60 s");
            if (result.failed() > 0)
                problems.add(result.failed() + " requests failed (first: " + result.failures().get(0) + ")");
            if (result.completed() == 0) problems.add("no request completed");
            if (result.stuckSessions() > 0)
                problems.add(result.stuckSessions() + " client session(s) still waiting for a reply 30 s after the end");
            if (accesses != null) {
                List<ReadFromChecker.Violation> violations = ReadFromChecker.check(accesses.all());
                for (ReadFromChecker.Violation v : violations.subList(0, Math.min(5, violations.size())))
                    problems.add("Definition 1 violated: " + v);
                if (violations.size() > 5) problems.add((violations.size() - 5) + " more reads from local requests of other partitions");
            }
            Checks.Result checks = check(cluster, spec);
            problems.addAll(checks.violations());
            return new Report(spec, workload.describe(), result, checks, List.copyOf(problems));
        }
    }

    /** Replica convergence and the application's audit on a quiet cluster's databases. */
    public static Checks.Result check(LocalCluster cluster, Spec spec) throws SQLException {
        return check(cluster, spec.app(), spec.scale(), spec.seed());
    }

    /** Replica convergence and the application's audit on a quiet cluster's databases. */
    public static Checks.Result check(LocalCluster cluster, Application app, int scale, long seed) throws SQLException {
        List<Connection> conns = new ArrayList<>();
        try {
            for (int i = 0; i < cluster.size(); i++)
                conns.add(cluster.connect(i));
            return Checks.run(app, app.audit(scale, seed), conns, cluster.instance(0).routing().map());
        } finally {
            for (Connection c : conns) c.close();
        }
    }
}
