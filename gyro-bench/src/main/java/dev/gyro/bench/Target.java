package dev.gyro.bench;

import dev.gyro.app.Call;
import dev.gyro.app.Outcome;

/**
 * The system a workload runs against: a Gyro cluster here; a single plain database or a baseline protocol in the
 * benchmark harness. Thread-safe; each client session opens its own {@link Channel}.
 */
public interface Target extends AutoCloseable {

    /** What the target says about where and how it ran a call. */
    record Result(Outcome outcome, String executedAs) {
        public Result {
            executedAs = executedAs == null ? "" : executedAs;
        }
    }

    /** One client session's connection: its calls run one at a time, in order. */
    interface Channel {
        Result execute(Call call);
    }

    /**
     * A new client session's channel. The harness ({@link WorkloadRunner}) opens one per session, in session order
     * 0..n-1, from one thread, before any session sends, so an implementation may place the i-th channel it opens
     * (e.g. at a WAN site).
     */
    Channel open();

    @Override
    void close();
}
