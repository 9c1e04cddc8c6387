package dev.gyro.bench;

import dev.gyro.app.Outcome;
import dev.gyro.client.GyroClient;
import dev.gyro.wire.Reply;
import dev.gyro.wire.Request;
import dev.gyro.emulation.wan.Site;
import dev.gyro.emulation.wan.Wan;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A Gyro cluster reached through the routing client. Every channel is a client {@link GyroClient.Session}, so one
 * emulated user reads its own writes wherever its requests run (docs/decisions/09-serializability-session.md).
 *
 * <p>Under WAN emulation ({@link #GyroTarget(List, Wan.Placement)}) the k-th channel opened is a client at site
 * {@link Wan.Placement#clientSite}(k) that sends every request to its nearest instance
 * ({@link Wan.Placement#entryInstance}(k)), which runs it or forwards it to its owner over the emulated WAN, as
 * the paper's clients do (Section VII-A); the client pays its site's one-way delay to that instance each way.
 * {@link #open(int)} opens session k's channel whatever the order of opening.
 */
public final class GyroTarget implements Target {

    private final GyroClient client;
    private final Wan.Placement wan;
    private final AtomicInteger opened = new AtomicInteger();

    /** Clients next to the cluster: each request goes straight to its owner, nothing is delayed. */
    public GyroTarget(List<String> addresses) {
        this(addresses, Wan.OFF.place(addresses.size()));
    }

    /**
     * Clients at the paper's five sites, around a cluster whose instances sit as {@code wan} says (the cluster's own
     * placement: {@code LocalCluster.wan()}).
     */
    public GyroTarget(List<String> addresses, Wan.Placement wan) {
        if (wan.instances() != addresses.size())
            throw new IllegalArgumentException("the WAN placement places " + wan.instances()
                    + " instances but the cluster has " + addresses.size());
        this.client = GyroClient.connect(addresses);
        this.wan = wan;
    }

    public GyroClient client() {
        return client;
    }

    /** Where the instances and clients sit ({@link Wan#OFF}'s placement when nothing is emulated). */
    public Wan.Placement wan() {
        return wan;
    }

    @Override
    public Channel open() {
        return open(wan.emulated() ? opened.getAndIncrement() : 0);
    }

    @Override
    public Channel open(int k) {
        return WanChannel.open(wan, k, entry -> {
            GyroClient.Session session = entry < 0 ? client.session() : client.session(entry);
            return call -> toResult(session.call(Request.of(call.transaction(), call.parameterArray())));
        });
    }

    static Result toResult(Reply r) {
        Outcome o = switch (r.status()) {
            case OK -> Outcome.ok(r.values());
            case ABORTED -> new Outcome(Outcome.Status.ABORTED, List.of(), r.message());
            default -> new Outcome(Outcome.Status.FAILED, List.of(), r.status() + ": " + r.message());
        };
        return new Result(o, r.executedAs());
    }

    @Override
    public void close() {
        client.close();
    }
}
