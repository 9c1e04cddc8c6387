package dev.gyro.bench;

import dev.gyro.app.Call;
import dev.gyro.app.Outcome;
import dev.gyro.emulation.wan.Site;
import dev.gyro.emulation.wan.Wan;

import java.util.Optional;

/**
 * The system a workload runs against: a Gyro cluster here; a single plain database or a baseline protocol in the
 * benchmark harness. Thread-safe; each client session opens its own {@link Channel}.
 */
public interface Target extends AutoCloseable {

    /**
     * {@link Result#executedAs()} of a call the system cannot run at all (a transaction its SQL layer does not
     * support), failed at once with the statement and why: the harness counts such calls apart, out of latency and
     * throughput, and marks the point partial instead of invalid.
     */
    String UNSUPPORTED = "unsupported";

    /** What the target says about where and how it ran a call. */
    record Result(Outcome outcome, String executedAs) {
        public Result {
            executedAs = executedAs == null ? "" : executedAs;
        }
    }

    /** One client session's connection: its calls run one at a time, in order. */
    interface Channel {
        Result execute(Call call);

        /**
         * The site this session's client machine is at under WAN emulation ({@link Wan}), or empty when the target
         * emulates no WAN.
         */
        default Optional<Site> site() {
            return Optional.empty();
        }
    }

    /**
     * A new client session's connection. Under WAN emulation the sessions are spread over the paper's five client
     * sites in the order they are opened (the k-th opened is at {@link Wan.Placement#clientSite}(k): G, J, US, B, A,
     * G, ...), so opening n channels puts n/5 client threads at each site, as the paper does (Section VII-A).
     * The harness ({@link WorkloadRunner}) opens one per session, in session order 0..n-1, from one thread, before
     * any session sends.
     */
    Channel open();

    /**
     * The connection of client session number {@code session} (0, 1, 2, ...: the index its {@link
     * dev.gyro.app.ClientSession} was created with), at the site that number gives under WAN emulation
     * ({@link Wan.Placement#clientSite}(session), sending to {@link Wan.Placement#entryInstance}(session)), whatever
     * order sessions open their channels in. A driver whose sessions are homed ({@link HomedWorkload}) must open
     * their channels with this: the home of session k is the instance session k's requests enter at, and
     * {@link #open()} numbers channels in the order their threads happen to open them.
     *
     * <p>The default is {@link #open()}: right for a target that places no clients at sites.
     */
    default Channel open(int session) {
        return open();
    }

    @Override
    void close();
}
