package dev.gyro.runtime;

import dev.gyro.wire.Transport;
import dev.gyro.wire.Wire;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Readies, in a replica that does not lead its group, the code its instance needs only once it serves: the metrics
 * registry, and a gRPC server and channel over the instance's own transport (mutual TLS included), with one call between
 * them. A follower's process has never loaded any of it (its group log speaks Ratis' own gRPC), so a replica that became
 * leader spent seconds of a loaded machine's CPU loading and initialising some 2,000 classes before its instance served
 * (docs/decisions/41-failover-on-a-loaded-machine.md). Once per process, best effort: a failure is logged and changes
 * nothing.
 */
public final class LeaderWarmUp {

    private static final Logger log = LoggerFactory.getLogger(LeaderWarmUp.class);
    private static final AtomicBoolean done = new AtomicBoolean();

    private LeaderWarmUp() {}

    /** Starts the warm-up on a daemon thread of low priority, the first time it is asked for in this process. */
    public static void inBackground(InstanceConfig config) {
        if (done.getAndSet(true)) return;
        Thread t = new Thread(() -> run(config), "gyro-" + config.self() + "-warm-up");
        t.setDaemon(true);
        t.setPriority(Thread.MIN_PRIORITY);
        t.start();
    }

    /** The warm-up itself, on the caller's thread; true when every part of it ran. */
    public static boolean run(InstanceConfig config) {
        long started = System.nanoTime();
        try (InstanceMetrics metrics = new InstanceMetrics(config.self(), config.application().catalog().names(),
                name -> null, new InstanceStats())) {
            metrics.scrape();
            Transport transport = config.network().transport();
            Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0),
                            transport.serverCredentials())
                    .addService(ServerServiceDefinition.builder(Wire.CLIENT_SERVICE)
                            .addMethod(Wire.STATUS, ServerCalls.asyncUnaryCall((request, reply) -> {
                                reply.onNext(new byte[0]);
                                reply.onCompleted();
                            }))
                            .build())
                    .build().start();
            ManagedChannel channel = transport.channel("127.0.0.1:" + server.getPort());
            try {
                ClientCalls.blockingUnaryCall(channel, Wire.STATUS,
                        CallOptions.DEFAULT.withDeadlineAfter(60, TimeUnit.SECONDS), new byte[0]);
            } finally {
                channel.shutdownNow();
                server.shutdownNow();
            }
            log.debug("instance {}: the serving path warmed up in {} ms", config.self(),
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
            return true;
        } catch (Exception | LinkageError e) {
            log.debug("instance {}: the serving path's warm-up failed (nothing else changes): {}", config.self(),
                    e.toString());
            return false;
        }
    }
}
