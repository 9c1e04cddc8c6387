package dev.gyro.cli;

import dev.gyro.app.Application;
import dev.gyro.app.Classification;
import dev.gyro.protocol.PartitionMap;
import dev.gyro.runtime.GyroInstance;
import dev.gyro.runtime.FailStop;
import dev.gyro.runtime.InstanceConfig;
import dev.gyro.runtime.db.Dialect;
import dev.gyro.wire.Transport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/** One Gyro instance as its own process, on its own machine if you like. */
@Command(name = "instance", mixinStandardHelpOptions = true,
        description = "Run one Gyro instance of a ring until interrupted.")
final class InstanceCommand implements Callable<Integer> {

    @Option(names = "--id", required = true, description = "this instance's position in the ring (0-based)")
    int id;

    @Option(names = "--ring", required = true, split = ",",
            description = "host:port of every instance, in ring order, comma-separated")
    List<String> ring;

    @Option(names = "--db", description = "this instance's SQLite database file")
    Path db;

    @Option(names = "--jdbc-url", description = "this instance's database as a JDBC URL instead of --db, on a"
            + " PostgreSQL or MariaDB server of its own (jdbc:postgresql://HOST:PORT/DB?user=..., jdbc:mariadb://...)")
    String jdbcUrl;

    @Option(names = "--app", defaultValue = "store", description = "the application (default: ${DEFAULT-VALUE})")
    String app;

    @picocli.CommandLine.Mixin
    Apps apps = new Apps();

    @Option(names = "--classification", description = "classification file (default: the application's own)")
    Path classification;

    @Option(names = "--load", description = "load the application's initial data at this scale if the database is new")
    Integer loadScale;

    @Option(names = "--seed", defaultValue = "42", description = "seed of the initial data (same on every instance)")
    long seed;

    @picocli.CommandLine.Mixin
    TransportOptions security = new TransportOptions();

    @Option(names = "--bind", paramLabel = "ADDRESS", description = "the address to listen on (default: the host of"
            + " this instance's own --ring address; 0.0.0.0 for every interface)")
    String bind;

    @Option(names = "--cluster-id", paramLabel = "ID", description = "the cluster's id with --insecure (with TLS it is"
            + " in the certificates): every instance of a ring must have the same, and its database is stamped with it")
    String clusterId;

    @Option(names = "--http", paramLabel = "ADDRESS:PORT", defaultValue = "127.0.0.1:0",
            description = "where to serve /metrics (Prometheus text), /status.json and the live view /; port 0 for a"
                    + " free one (default: ${DEFAULT-VALUE}, loopback only), 'none' for no HTTP endpoint")
    String http;

    @Override
    public Integer call() throws Exception {
        if ((db == null) == (jdbcUrl == null)) {
            System.err.println("gyro instance: give the database as --db FILE (SQLite) or --jdbc-url URL, exactly one");
            return 2;
        }
        String target = jdbcUrl != null ? jdbcUrl : db.toString();
        Application application;
        InstanceConfig.Network network;
        try {
            application = apps.byName(app);
            network = new InstanceConfig.Network(security.transport(Transport.instanceIdentity(id)), bind, clusterId);
        } catch (IllegalArgumentException e) {
            System.err.println("gyro instance: " + e.getMessage());
            return 2;
        }
        if (loadScale != null) {
            try (Connection c = DriverManager.getConnection(Dialect.forTarget(target).jdbcUrl(target))) {
                c.setAutoCommit(false);
                application.createSchema(c);
                if (!application.isLoaded(c)) application.load(c, loadScale, seed);
                c.commit();
            }
        }
        // Fail-stop: an instance that stops itself ends this process with a non-zero status (FailStop.EXIT_STATUS).
        InstanceConfig config;
        try {
            config = InstanceConfig.of(id, ring, target, application).withFailStop(FailStop.EXIT).withNetwork(network)
                    .withHttp(http.equalsIgnoreCase("none") ? null : http);
        } catch (IllegalArgumentException e) {
            System.err.println("gyro instance: " + e.getMessage());
            return 2;
        }
        if (classification != null) config = config.withClassification(Classification.read(classification));
        GyroInstance instance = new GyroInstance(config).start();
        System.out.println("gyro instance " + id + " of " + ring.size() + " serving " + app + " on " + ring.get(id)
                + " (listening on " + config.bindHost() + ", " + network.transport() + ", database "
                + config.describeDatabase() + ", " + PartitionMap.uniform(ring.size()) + ")"
                + (instance.httpUrl() == null ? "" : "; metrics and live view on " + instance.httpUrl()));
        System.out.flush();
        CountDownLatch stop = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            instance.close();
            stop.countDown();
        }));
        stop.await();
        return 0;
    }
}
