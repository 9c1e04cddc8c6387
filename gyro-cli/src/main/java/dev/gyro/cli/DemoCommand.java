package dev.gyro.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Run the online store over N Gyro instances on N databases (SQLite files, or PostgreSQL or "
                + "MariaDB servers it starts on free loopback ports: --backend), with concurrent clients, then check that replicas are equal and invariants hold, and print the figures. "
                + "The last line starts with 'demo: OK' or 'demo: FAILED'; the exit code is 0 only if every check passed.")
final class DemoCommand implements Callable<Integer> {

    @Option(names = "--instances", defaultValue = "3", description = "number of instances (default: ${DEFAULT-VALUE})")
    int instances;

    @Option(names = {"--clients", "--sessions"}, defaultValue = "16", description = "concurrent clients (default: ${DEFAULT-VALUE})")
    int clients;

    @Option(names = "--duration", defaultValue = "20", description = "seconds of workload, longer while no order (a global request) has completed yet, up to 60 s more"
            + " (default: ${DEFAULT-VALUE})")
    double seconds;

    @Option(names = "--dir", defaultValue = "demo-data", description = "where the databases go (SQLite files or"
            + " server directories); emptied first when Gyro made it, refused when it holds other files (default: ${DEFAULT-VALUE})")
    Path dir;

    @Option(names = "--backend", defaultValue = "sqlite", description = "sqlite, postgres or mariadb: the DBMS of"
            + " every instance (default: ${DEFAULT-VALUE})")
    String backend;

    @Option(names = "--scale", defaultValue = "1", description = "thousands of items in the store (default: ${DEFAULT-VALUE})")
    int scale;

    @Option(names = "--seed", defaultValue = "42", description = "seed of the data and the clients (default: ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--replicas", defaultValue = "1", description = "replicas per instance: 1 runs each instance on one"
            + " database; 3 runs each as a replicated group of 3, each replica with its own database, tolerating the loss"
            + " of any one per group (default: ${DEFAULT-VALUE})")
    int replicas;

    @Option(names = "--chaos", description = "with --replicas 2 or more: kill group leaders abruptly at random moments"
            + " during the run (at least two, one while its group holds the token) and bring them back; prints"
            + " 'failovers: N'")
    boolean chaos;

    @Option(names = "--grow", description = "add an instance a third into the run and take instance 0 out two thirds"
            + " into it, each while the clients go on, moving buckets with their rows (SQLite; prints each step)")
    boolean grow;

    @Override
    public Integer call() {
        if (replicas < 1) {
            System.out.println("demo: FAILED: --replicas must be at least 1");
            return 2;
        }
        if (chaos && replicas < 3) {
            System.out.println("demo: FAILED: --chaos kills leaders, which needs groups that survive the loss of one:"
                    + " --replicas 3 or more");
            return 2;
        }
        if (grow && (replicas > 1 || !backend.equalsIgnoreCase("sqlite") || instances < 2)) {
            System.out.println("demo: FAILED: --grow runs on SQLite instances of one database each, at least 2"
                    + (replicas > 1 ? " (replicated groups grow in a cluster: gyro cluster start --replicas " + replicas
                    + " --detach, then gyro cluster add-instance)" : ""));
            return 2;
        }
        if (instances < 1 || clients < 1 || seconds <= 0 || scale < 1) {
            System.out.println("demo: FAILED: --instances, --clients, --duration and --scale must be positive");
            return 2;
        }
        dev.gyro.cluster.Backend dbms;
        try {
            dbms = dev.gyro.cluster.Backend.parse(backend);
        } catch (IllegalArgumentException e) {
            System.out.println("demo: FAILED: --backend: " + e.getMessage());
            return 2;
        }
        Demo.Result result;
        try {
            result = new Demo(new Demo.Settings(instances, clients, seconds, dir, scale, seed, dbms, replicas, chaos, grow), System.out).run();
        } catch (dev.gyro.servers.MissingServerException | IllegalArgumentException e) {
            System.out.println("demo: FAILED: " + e.getMessage());
            return 1;
        } catch (Exception e) {
            System.out.println("demo: FAILED: " + e);
            return 1;
        }
        System.out.println();
        if (result.ok()) {
            System.out.printf("demo: OK (%d instances%s%s, %d clients, %d requests; replicas equal, invariants hold)%n",
                    instances, replicas > 1 ? " of " + replicas + " replicas each" : "",
                    grow ? ": one instance joined, one left" : "", clients, result.requests());
            return 0;
        }
        System.out.println("demo: FAILED: " + String.join("; ", result.failures()));
        return 1;
    }
}
