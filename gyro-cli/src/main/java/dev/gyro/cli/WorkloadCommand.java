package dev.gyro.cli;

import dev.gyro.app.Application;
import dev.gyro.app.WorkloadOptions;
import dev.gyro.bench.ClusterBenchmark;
import dev.gyro.check.AccessLog;
import dev.gyro.bench.Reports;
import dev.gyro.bench.WorkloadRunner;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "workload", mixinStandardHelpOptions = true,
        description = "Run an application's benchmark workload (TPC-W, RUBiS, TPC-C, the micro-benchmark) with N "
                + "closed-loop client sessions against N Gyro instances on N SQLite files, then check replica "
                + "convergence and the application's consistency conditions. The last line starts with "
                + "'workload: OK' or 'workload: FAILED'; the exit code is 0 only if every check passed.")
final class WorkloadCommand implements Callable<Integer> {

    @Option(names = "--app", required = true, description = "tpcw, rubis, tpcc, micro, or one of your own with"
            + " --app-jar (its own workload: Application.workload)")
    String app;

    @picocli.CommandLine.Mixin
    Apps apps = new Apps();

    @Option(names = "--instances", defaultValue = "3", description = "number of instances (default: ${DEFAULT-VALUE})")
    int instances;

    @Option(names = {"--clients", "--sessions"}, defaultValue = "16", description = "concurrent clients, each one session (default: ${DEFAULT-VALUE})")
    int sessions;

    @Option(names = "--duration", defaultValue = "20", description = "seconds of workload (default: ${DEFAULT-VALUE})")
    double seconds;

    @Option(names = "--scale", defaultValue = "1", description = "the application's scale unit; TPC-C: warehouses (default: ${DEFAULT-VALUE})")
    int scale;

    @Option(names = "--seed", defaultValue = "42", description = "seed of the data and the sessions (default: ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--dir", defaultValue = "workload-data", description = "where the databases (SQLite files or throwaway servers) go; emptied first when Gyro made it, refused when it holds other files (default: ${DEFAULT-VALUE})")
    Path dir;

    @Option(names = "--backend", defaultValue = "sqlite", description = "sqlite, postgres or mariadb: the DBMS of every "
            + "instance (postgres and mariadb: throwaway servers started on free loopback ports) (default: ${DEFAULT-VALUE})")
    String backend;

    @Option(names = "--check", description = "also check the classification on this run: every instance records"
            + " what each request reads and writes, and each read from a local request of another partition (a breach"
            + " of the paper's Definition 1) fails the run")
    boolean check;

    @Option(names = {"-o", "--option"}, description = "a workload option name=value, repeatable: tpcw mix=browsing|shopping|ordering; "
            + "rubis mix=bidding|browsing; tpcc remote-lines=1 remote-payments=15; micro local=90 service-ms=5 void; all think-ms=0")
    List<String> options = new ArrayList<>();

    @Override
    public Integer call() {
        if (instances < 1 || sessions < 1 || seconds <= 0 || scale < 1) {
            System.out.println("workload: FAILED: --instances, --sessions, --duration and --scale must be positive");
            return 2;
        }
        Application application;
        WorkloadOptions parsed;
        dev.gyro.cluster.Backend dbms;
        try {
            dbms = dev.gyro.cluster.Backend.parse(backend);
            application = apps.byName(app);
            parsed = WorkloadOptions.parse(options);
            application.workload(scale, parsed);
            OwnedFolder.fresh(dir, "--dir");
        } catch (RuntimeException | java.io.IOException e) {
            System.out.println("workload: FAILED: " + e.getMessage());
            return 2;
        }
        ClusterBenchmark.Report report;
        try {
            System.out.printf("Gyro workload: %s (%s) on %d instances, %d %s databases under %s%n", app,
                    application.describeScale(scale), instances, instances, dbms, dir);
            ProgressBar load = new ProgressBar(System.out, "loading ");
            ProgressBar[] run = new ProgressBar[1];
            report = ClusterBenchmark.run(new ClusterBenchmark.Spec(application, dir, instances, scale, seed, sessions,
                    Duration.ofMillis((long) (seconds * 1000)), parsed, dbms), new ClusterBenchmark.Listener() {
                public void loaded(int databases, int of) {
                    load.update((double) databases / of, databases + "/" + of + " databases");
                    if (databases == of) load.done(of + " databases loaded");
                }

                public void started(List<String> addresses, String workload) {
                    System.out.println("instances: " + String.join(", ", addresses) + "   (gyro status --ring "
                            + String.join(",", addresses) + " --insecure)");
                    System.out.println("workload: " + workload + ", " + sessions + " sessions");
                    run[0] = new ProgressBar(System.out, "workload");
                }

                public void watching(List<String> http) {
                    System.out.println("watch: " + http.get(0) + " (live view; /metrics on each: "
                            + String.join(", ", http) + ")");
                }

                public void running(double elapsed, double total, long completed) {
                    run[0].update(elapsed / total, String.format("%5.1f/%.0f s  %7.0f req/s", elapsed, total,
                            completed / Math.max(0.001, elapsed)));
                }

                public void finished(WorkloadRunner.Result r) {
                    run[0].done(String.format("%.1f s, %d requests", r.seconds(), r.completed()));
                }
            }, check ? new AccessLog() : null);
        } catch (Exception e) {
            System.out.println("workload: FAILED: " + e);
            return 1;
        }
        Reports.print(report, System.out);
        System.out.println();
        if (report.ok()) {
            System.out.printf("workload: OK (%s, %d instances, %d sessions, %d requests; replicas equal, conditions hold%s)%n",
                    app, instances, sessions, report.run().completed(),
                    check ? "; no request read from a local request of another partition" : "");
            return 0;
        }
        System.out.println("workload: FAILED: " + String.join("; ", report.problems()));
        return 1;
    }
}
