package dev.gyro.bench;

import dev.gyro.app.Call;
import dev.gyro.client.GyroClient;
import dev.gyro.cluster.LocalCluster;
import dev.gyro.emulation.wan.Wan;
import dev.gyro.runtime.GyroInstance;
import dev.gyro.wire.Reply;
import dev.gyro.wire.Request;
import dev.gyro.wire.RoutingTable;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A Gyro cluster whose clients call its instances in their own process ({@link GyroInstance#call}), as the paper
 * deploys Gyro: a library inside the application server (Figure 1), next to the application, as the benchmarks run
 * every baseline's application next to its databases (docs/benchmark-method.md). Each request goes to its
 * owner by the cluster's routing table; under WAN emulation to the client's nearest instance, which forwards it to its
 * owner over the emulated WAN, the client paying its site's delay each way ({@link WanChannel}). A channel is one
 * user's session: each request carries the highest gsn the session has seen, so a user reads its own writes wherever
 * its requests run (decision 9). {@link GyroTarget} reaches the same cluster through the client library instead.
 */
public final class InProcessTarget implements Target {

    private final LocalCluster cluster;
    private final List<GyroInstance> instances = new ArrayList<>();
    private final RoutingTable routing;
    private final Wan.Placement wan;
    private final AtomicInteger opened = new AtomicInteger(), roundRobin = new AtomicInteger();

    private GyroClient client; // only to look at the cluster from outside (status, routing), made on demand

    public InProcessTarget(LocalCluster cluster) {
        this.cluster = cluster;
        for (int i = 0; i < cluster.size(); i++) instances.add(cluster.instance(i));
        this.routing = instances.get(0).routing();
        this.wan = cluster.wan();
    }

    /** Where the instances and clients sit ({@link Wan#OFF}'s placement when nothing is emulated). */
    public Wan.Placement wan() {
        return wan;
    }

    /** A client of the same cluster, for what the calls do not show: each instance's status, its routing table. */
    public synchronized GyroClient client() {
        if (client == null) client = GyroClient.connect(cluster.addresses());
        return client;
    }

    @Override
    public Channel open() {
        return open(wan.emulated() ? opened.getAndIncrement() : 0);
    }

    @Override
    public Channel open(int k) {
        return WanChannel.open(wan, k, entry -> new Session(entry)::call);
    }

    /** One user's requests, in order. */
    private final class Session {
        private final AtomicLong seenGsn = new AtomicLong();
        private final int entry; // -1: each request to its owner

        Session(int entry) {
            this.entry = entry;
        }

        Result call(Call call) {
            Request request = Request.of(call.transaction(), call.parameterArray());
            long after = seenGsn.get();
            if (after > request.afterGsn()) request = request.after(after);
            Reply reply = instance(entry >= 0 ? entry : owner(request)).call(request);
            if (reply.gsn() > 0) seenGsn.accumulateAndGet(reply.gsn(), Math::max);
            return GyroTarget.toResult(reply);
        }
    }

    /**
     * Instance {@code i} as the cluster runs it now: one that joined the ring since is called too
     * (docs/decisions/44-ring-changes.md); for one that left, the first that runs, which forwards by its map.
     */
    private GyroInstance instance(int i) {
        GyroInstance g = i < cluster.size() ? cluster.instance(i) : null;
        if (g != null) return g;
        for (int k = 0; k < cluster.size(); k++) if (cluster.instance(k) != null) return cluster.instance(k);
        return instances.get(0);
    }

    /** The instance that owns {@code request}; one in turn for a request the table cannot route (it refuses it). */
    private int owner(Request request) {
        int entry = Math.floorMod(roundRobin.getAndIncrement(), instances.size());
        RoutingTable.Decision d = routing.decide(request.transaction(), request.parameters(), entry);
        return d == null ? entry : d.owner();
    }

    @Override
    public synchronized void close() {
        if (client != null) client.close(); // the cluster is the deployment's to close
    }
}
