package dev.gyro.bench;

import dev.gyro.app.Call;
import dev.gyro.app.Outcome;
import dev.gyro.emulation.wan.Site;
import dev.gyro.emulation.wan.Wan;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;

/**
 * A client session at a WAN site ({@link dev.gyro.emulation.wan.Wan}): each call leaves after the one-way delay
 * between the client's site and the site of the instance (or database) it talks to, and its reply is handed back
 * after the same delay again. The session's own thread waits out both delays: a closed-loop client waits for its
 * reply anyway, and its request reaches the server exactly as late as a delayed message would.
 */
final class WanChannel implements Target.Channel {

    private final Site site;
    private final long oneWayNanos;
    private final Target.Channel server;

    /**
     * @param site   where the client is
     * @param oneWay the delay of one message between the client and what {@code server} reaches
     * @param server the connection that runs the call, without delay
     */
    /**
     * Session {@code k}'s channel to a Gyro cluster placed as {@code wan}: without emulation, {@code session}(-1) (each
     * request to its owner); with it, {@code session}(entry) at session k's site, paying its delay to its nearest
     * instance each way.
     */
    static Target.Channel open(Wan.Placement wan, int k, java.util.function.IntFunction<Target.Channel> session) {
        if (!wan.emulated()) return session.apply(-1);
        Site site = Wan.Placement.clientSite(k);
        int entry = wan.entryInstance(k);
        return new WanChannel(site, wan.clientOneWay(site, entry), session.apply(entry));
    }

    WanChannel(Site site, Duration oneWay, Target.Channel server) {
        this.site = site;
        this.oneWayNanos = oneWay.toNanos();
        this.server = server;
    }

    @Override
    public Target.Result execute(Call call) {
        if (!pause(oneWayNanos))
            return new Target.Result(new Outcome(Outcome.Status.FAILED, List.of(), call.transaction()
                    + " not sent: the client at " + site.abbreviation() + " was interrupted"), "");
        Target.Result result = server.execute(call);
        pause(oneWayNanos); // interrupted: hand the reply back now, the flag set again for the caller
        return result;
    }

    @Override
    public Optional<Site> site() {
        return Optional.of(site);
    }

    /** Waits {@code nanos} on the monotonic clock (finer than Thread.sleep's milliseconds); false if interrupted. */
    static boolean pause(long nanos) {
        long deadline = System.nanoTime() + nanos;
        for (long left = nanos; left > 0; left = deadline - System.nanoTime()) {
            LockSupport.parkNanos(left);
            if (Thread.currentThread().isInterrupted()) return false;
        }
        return true;
    }
}
