package dev.gyro.bench;

import org.HdrHistogram.Histogram;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One measured point of a scenario: a system at one setting of the parameters, with its throughput, latency and the
 * verdict of the checks that followed the run (DESIGN.md "Benchmark method"; issue 6, item 4).
 *
 * @param system     the {@link SystemUnderTest}'s name
 * @param scenario   e.g. {@code local-ratio}
 * @param parameters what varies between points (e.g. {@code localPercent}, {@code clients}), in order
 * @param mode       the capacity mode, in words ({@link dev.gyro.runtime.Capacity#describe()})
 * @param seconds    how long load was measured (warm-up excluded)
 * @param requests   calls completed in the measured period
 * @param throughput requests per second
 * @param all        latency of all calls
 * @param byClass    latency per class (local, global: how the system ran the call)
 * @param valid      whether the run passed replica convergence and the application's audit and failed no call
 * @param problems   why it is not valid
 */
public record Measured(String system, String scenario, Map<String, Object> parameters, String mode, double seconds,
                       long requests, double throughput, Latency all, Map<String, Latency> byClass, boolean valid,
                       List<String> problems) {

    /** Mean and percentiles in milliseconds. */
    public record Latency(long count, double meanMs, double p50Ms, double p95Ms, double p99Ms, double maxMs) {
        public static Latency of(Histogram h) {
            if (h.getTotalCount() == 0) return new Latency(0, 0, 0, 0, 0, 0);
            return new Latency(h.getTotalCount(), h.getMean() / 1000.0, h.getValueAtPercentile(50) / 1000.0,
                    h.getValueAtPercentile(95) / 1000.0, h.getValueAtPercentile(99) / 1000.0, h.getMaxValue() / 1000.0);
        }
    }

    public Object parameter(String name) {
        return parameters.get(name);
    }

    /** From a runner's result: totals over all classes, and per class. */
    public static Measured of(String system, String scenario, Map<String, Object> parameters, String mode,
                              WorkloadRunner.Result r, List<String> problems) {
        Histogram total = new Histogram(3);
        Map<String, Latency> byClass = new LinkedHashMap<>();
        for (Map.Entry<String, Histogram> e : r.latencyMicros().entrySet()) {
            total.add(e.getValue());
            byClass.put(e.getKey().isEmpty() ? "-" : e.getKey(), Latency.of(e.getValue()));
        }
        long requests = r.completed();
        return new Measured(system, scenario, java.util.Collections.unmodifiableMap(new LinkedHashMap<>(parameters)), mode, r.seconds(), requests,
                r.seconds() > 0 ? requests / r.seconds() : 0, Latency.of(total), byClass, problems.isEmpty(),
                List.copyOf(problems));
    }
}
