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

    Channel open();

    @Override
    void close();
}
