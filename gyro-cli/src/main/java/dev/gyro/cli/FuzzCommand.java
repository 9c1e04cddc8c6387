package dev.gyro.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gyro.app.Application;
import dev.gyro.app.TransactionCatalog;
import dev.gyro.runtime.InstanceConfig;
import dev.gyro.wire.Transport;
import dev.gyro.wire.tls.Certificates;
import dev.gyro.wire.tls.TlsFiles;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code gyro fuzz}: random and mutated messages against an instance of a running cluster ({@link Fuzzer}), with the
 * cluster's own certificates so they reach its decoders. Exit status 0 when nothing crashed, hung or changed.
 */
@Command(name = "fuzz", mixinStandardHelpOptions = true,
        description = "Send random and mutated requests and peer messages to an instance of a running cluster (with"
                + " its certificates), then check that every instance still answers, every call was answered with an"
                + " error, and no replica changed. Exit status 0 when clean, 1 otherwise.")
final class FuzzCommand implements Callable<Integer> {

    @Option(names = "--cluster", paramLabel = "DIR", defaultValue = "gyro-cluster",
            description = "the directory of a cluster started by 'gyro cluster start' (default: ${DEFAULT-VALUE})")
    Path cluster;

    @Option(names = "--instance", paramLabel = "I", defaultValue = "1",
            description = "the instance to send to (default: ${DEFAULT-VALUE})")
    int instance;

    @Option(names = "--count", paramLabel = "N", defaultValue = "100000",
            description = "how many messages to send (default: ${DEFAULT-VALUE})")
    long count;

    @Option(names = "--seconds", paramLabel = "S", defaultValue = "600",
            description = "stop sending after this many seconds even if fewer were sent (default: ${DEFAULT-VALUE})")
    long seconds;

    @Option(names = "--seed", defaultValue = "42", description = "seed of the random messages (default: ${DEFAULT-VALUE})")
    long seed;

    @Override
    public Integer call() throws Exception {
        if (count <= 0 || seconds <= 0) throw new IllegalArgumentException("--count and --seconds must be positive");
        Fuzzer.Result result = new Fuzzer(target(cluster, instance)).run(count, Duration.ofSeconds(seconds), seed,
                System.out::println);
        System.out.println(result.summary());
        return result.clean() ? 0 : 1;
    }

    /** What to fuzz in the cluster of {@code dir}: its instances, certificates and application, from cluster.json. */
    static Fuzzer.Target target(Path dir, int instance) throws Exception {
        Path info = ClusterCommand.infoFile(dir.toAbsolutePath());
        if (!Files.exists(info))
            throw new IllegalArgumentException("no cluster in " + dir.toAbsolutePath() + " (no cluster.json): start one"
                    + " with 'gyro cluster start --dir " + dir + "'");
        JsonNode root = ClusterCommand.JSON.readTree(info.toFile());
        List<String> addresses = new ArrayList<>(), urls = new ArrayList<>();
        for (JsonNode n : root.get("instances")) {
            addresses.add(n.get("address").asText());
            String url = ClusterCommand.jdbcUrl(n);
            if (url.contains("***"))
                throw new IllegalArgumentException("instance " + n.get("id").asText() + "'s database URL in " + info
                        + " hides its password: fuzz compares the databases, and needs to read them");
            urls.add(url);
        }
        if (instance < 0 || instance >= addresses.size())
            throw new IllegalArgumentException("--instance " + instance + ": the cluster has instances 0 to "
                    + (addresses.size() - 1));
        Apps apps = new Apps();
        for (JsonNode jar : root.get("appJars")) apps.jars.add(Path.of(jar.asText()));
        Application app = apps.byName(root.get("application").asText());
        JsonNode tls = root.get("tls");
        Transport client, peer;
        int successor = (instance + 1) % addresses.size();
        if (tls == null || tls.isNull()) {
            client = peer = Transport.insecure();
        } else {
            TlsFiles files = new TlsFiles(Path.of(tls.asText()));
            client = Transport.mutualTls(files, Certificates.CLIENT);
            peer = Transport.mutualTls(files, Transport.instanceIdentity(successor));
        }
        String ring = InstanceConfig.of(0, addresses, Path.of("unused.db"), app).ringFingerprint();
        return new Fuzzer.Target(addresses, instance, client, peer, root.get("clusterId").asText(), ring,
                new TransactionCatalog(app.transactions()), urls);
    }
}
