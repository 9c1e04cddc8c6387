package dev.gyro.cli;

import dev.gyro.wire.tls.Certificates;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;

/**
 * {@code gyro certs --dir D --ring HOST:PORT,...}: a new cluster's CA and its certificates, for instances started one by
 * one with {@code gyro instance --tls-dir D} (copy D's {@code ca.crt} and each instance's pair to its machine, and the
 * client pair to the clients'). {@code gyro cluster start} makes its own.
 */
@Command(name = "certs", mixinStandardHelpOptions = true,
        description = "Create a cluster's CA and the certificates of its instances (instance-I) and clients (client)"
                + " for mutual TLS.")
final class CertsCommand implements Callable<Integer> {

    @Option(names = "--dir", required = true, paramLabel = "DIR", description = "where the certificates go: a new or"
            + " empty folder (ca.key in it signs certificates: keep it private)")
    Path dir;

    @Option(names = "--ring", split = ",", paramLabel = "HOST:PORT",
            description = "every instance's address, in ring order (the hosts go into the certificates); a replicated"
                    + " group's replicas joined by '+' (A+B+C)")
    List<String> ring;

    @Option(names = "--cluster-id", paramLabel = "ID", description = "the cluster's id (default: a new random one)")
    String clusterId;

    @Option(names = "--add-instance", paramLabel = "ID", description = "instead: issue, with the CA already in --dir,"
            + " the certificate of one more instance (one that joins a running ring: gyro instance --join)")
    Integer addInstance;

    @Option(names = "--host", paramLabel = "HOST", description = "with --add-instance: the new instance's host, put"
            + " into its certificate beside localhost (default: none more)")
    List<String> hosts = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        Path d = dir.toAbsolutePath();
        if (addInstance != null) {
            if (!Files.exists(d.resolve("ca.key"))) {
                System.err.println("gyro certs: --add-instance needs the cluster's CA: " + d.resolve("ca.key")
                        + " is not there");
                return 2;
            }
            String identity = dev.gyro.wire.Transport.instanceIdentity(addInstance);
            if (Files.exists(d.resolve(identity + ".crt"))) {
                System.err.println("gyro certs: " + d.resolve(identity + ".crt") + " exists already");
                return 2;
            }
            dev.gyro.wire.tls.Certificates.issue(d, identity, hosts);
            System.out.println("gyro certs: certificate of " + identity + " in " + d);
            return 0;
        }
        if (ring == null || ring.isEmpty()) {
            System.err.println("gyro certs: give --ring, every instance's address (or --add-instance ID)");
            return 2;
        }
        if (Files.exists(d) && (!Files.isDirectory(d) || Files.list(d).findAny().isPresent())) {
            System.err.println("gyro certs: " + d + " exists and is not an empty folder");
            return 2;
        }
        List<String> hosts = new ArrayList<>();
        for (String entry : ring) {
            // an instance that is a replicated group lists its replicas (A+B+C): each one's host goes in
            for (String a : dev.gyro.wire.Transport.replicaAddresses(entry)) {
                int colon = a.lastIndexOf(':');
                if (colon < 1) {
                    System.err.println("gyro certs: '" + a + "' is not host:port");
                    return 2;
                }
                hosts.add(a.substring(0, colon).replace("[", "").replace("]", ""));
            }
        }
        String id = clusterId != null ? clusterId : UUID.randomUUID().toString();
        Certificates.createCluster(d, id, ring.size(), hosts);
        System.out.println("gyro certs: cluster " + id + ", " + ring.size() + " instance certificates and a client"
                + " certificate in " + d);
        return 0;
    }
}
