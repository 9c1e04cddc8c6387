package dev.gyro.runtime;

import dev.gyro.app.TransactionCatalog;
import dev.gyro.runtime.hook.LinkDelay;
import dev.gyro.wire.RoutingTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The parts of an instance that do not depend on what its database holds: its threads, its metrics registry, the
 * watch of its peers and its links to them. {@link InstanceParts} builds them first; a replica that follows its group
 * builds them ahead ({@link GyroInstance#prepare()}), so that when it leads, its instance only recovers the belt from
 * the database and starts serving (docs/decisions/41-failover-on-a-loaded-machine.md). Nothing here reads or writes the
 * database, listens, or connects: the links connect on their first message.
 *
 * <p>Owned by the instance's parts once it starts; closed with them, or alone when the instance never started.
 */
final class StandbyParts implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(StandbyParts.class);

    final LinkDelay links;
    final ScheduledExecutorService timers;
    final ExecutorService requestThreads;
    /** The probe of an idle instance's database (DatabaseHealth) blocks for up to the pool's timeout: its own thread. */
    final ExecutorService probes;
    final InstanceMetrics metrics;
    final RingWatch ring;
    final PeerLinks peers;
    private final int self;
    private final AtomicBoolean closed = new AtomicBoolean();

    StandbyParts(InstanceConfig config, TransactionCatalog catalog, RoutingTable routing, InstanceStats stats) {
        this.self = config.self();
        LinkDelay l = null;
        ScheduledExecutorService t = null;
        ExecutorService r = null, p = null;
        InstanceMetrics m = null;
        try {
            l = config.hooks().links().open(self);
            t = Threads.timer(self);
            r = Threads.bounded(self, "req", config.requestThreads(), config.maxQueuedRequests());
            p = Threads.single(self, "db-probe");
            m = new InstanceMetrics(self, catalog.names(), name -> {
                RoutingTable.Route route = routing.route(name);
                return route == null ? null : route.kind();
            }, stats);
            m.requestPool((ThreadPoolExecutor) r);
            RingWatch w = new RingWatch(self, config.addresses(), stats::queuedGlobals);
            m.ring("gyro.peers.unreachable", "peers this instance has not reached for longer than the alarm bound", w,
                    RingWatch::unreachablePeers);
            m.ring("gyro.token.unacknowledged.seconds", "how long the token this instance passed waits for its"
                    + " acknowledgement (0 once acknowledged)", w, RingWatch::tokenUnacknowledgedSeconds);
            m.ring("gyro.ring.broken", "1 while this instance reports a broken ring", w, RingWatch::broken);
            // every message says which cluster, ring and instance it is from (PeerCheck); the peer links own the links
            this.peers = new PeerLinks(self, config.addresses(), l, config.network().transport(),
                    new PeerCheck(config).headers(), w);
            this.ring = w;
        } catch (RuntimeException e) {
            closeAll(l, t, r, p, m);
            throw e;
        }
        this.links = l;
        this.timers = t;
        this.requestThreads = r;
        this.probes = p;
        this.metrics = m;
    }

    /** Closes everything, the last built first; once (an instance's close and its replica's may both ask). */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) return;
        try {
            peers.close(); // and the links
        } catch (RuntimeException e) {
            log.warn("instance {}: closing its peer links failed: {}", self, e.toString());
        }
        closeAll(null, timers, requestThreads, probes, metrics);
    }

    private static void closeAll(LinkDelay links, ScheduledExecutorService timers, ExecutorService requestThreads,
                                 ExecutorService probes, InstanceMetrics metrics) {
        if (probes != null) probes.shutdownNow();
        if (metrics != null) metrics.close();
        if (requestThreads != null) stopAndWait(requestThreads);
        if (timers != null) timers.shutdownNow();
        if (links != null) {
            try {
                links.close();
            } catch (Exception e) {
                log.warn("closing the links failed: {}", e.toString());
            }
        }
    }

    private static void stopAndWait(ExecutorService threads) {
        threads.shutdownNow();
        try {
            threads.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
