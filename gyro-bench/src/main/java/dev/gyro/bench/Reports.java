package dev.gyro.bench;

import dev.gyro.check.ReplicaCheck;
import org.HdrHistogram.Histogram;

import java.io.PrintStream;
import java.util.List;
import java.util.Map;

/** Prints a {@link ClusterBenchmark.Report} for people. */
public final class Reports {

    private Reports() {}

    public static void print(ClusterBenchmark.Report report, PrintStream out) {
        WorkloadRunner.Result r = report.run();
        out.printf("%nrequests by transaction (%.1f s, %d sessions; %s)%n", r.seconds(), r.sessions(), report.workload());
        out.printf("  %-28s %9s %9s %9s%n", "transaction", "ok", "aborted", "failed");
        for (Map.Entry<String, WorkloadRunner.Counts> e : r.byTransaction().entrySet())
            out.printf("  %-28s %9d %9d %9d%n", e.getKey(), e.getValue().ok(), e.getValue().aborted(), e.getValue().failed());
        out.printf("%nlatency by class%n  %-7s %9s %10s %9s %9s %9s %9s%n", "class", "count", "req/s", "p50 ms", "p95 ms",
                "p99 ms", "max ms");
        for (Map.Entry<String, Histogram> e : r.latencyMicros().entrySet()) {
            Histogram h = e.getValue();
            out.printf("  %-7s %9d %10.1f %9.2f %9.2f %9.2f %9.2f%n", e.getKey().isEmpty() ? "-" : e.getKey(),
                    h.getTotalCount(), h.getTotalCount() / r.seconds(), h.getValueAtPercentile(50) / 1000.0,
                    h.getValueAtPercentile(95) / 1000.0, h.getValueAtPercentile(99) / 1000.0, h.getMaxValue() / 1000.0);
        }
        Checks.Result c = report.checks();
        out.printf("%nreplicated tables (written by global requests), per instance: rows / sha-256%n");
        for (List<ReplicaCheck.TableDigest> table : c.replicas()) {
            StringBuilder line = new StringBuilder(String.format("  %-18s", table.get(0).table()));
            boolean equal = true;
            for (ReplicaCheck.TableDigest d : table) {
                line.append(String.format("  %7d / %-12s", d.rows(), d.sha256().substring(0, 12)));
                equal &= d.rows() == table.get(0).rows() && d.sha256().equals(table.get(0).sha256());
            }
            out.println(line.append("  ").append(equal ? "equal" : "DIFFERENT"));
        }
        out.printf("%nconsistency conditions%n");
        for (String condition : c.conditions()) out.println("  - " + condition);
        out.println(c.violations().isEmpty() ? "  all hold on every instance" : "  VIOLATED:");
        for (String v : c.violations()) out.println("    " + v);
    }
}
