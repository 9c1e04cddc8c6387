package dev.gyro.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gyro.client.GyroClient;
import dev.gyro.wire.Reply;
import dev.gyro.wire.Request;
import dev.gyro.wire.RoutingTable;
import dev.gyro.wire.Transport;
import dev.gyro.wire.tls.Certificates;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/** Sends one request to a running ring, routed like any client's, and prints the reply. */
@Command(name = "call", mixinStandardHelpOptions = true,
        description = "Send one request to a running Gyro ring and print the reply, e.g. "
                + "gyro call --cluster gyro-cluster createCart 5, or list the transactions it accepts with --list.")
final class CallCommand implements Callable<Integer> {

    static final class Target {
        @Option(names = "--ring", split = ",", paramLabel = "HOST:PORT", description = "host:port of one or more instances")
        List<String> ring;

        @Option(names = "--cluster", paramLabel = "DIR", description = "the directory of a cluster started with"
                + " 'gyro cluster start' (its cluster.json says where the instances are)")
        Path cluster;
    }

    @ArgGroup(exclusive = true, multiplicity = "1")
    Target target;

    @picocli.CommandLine.Mixin
    TransportOptions security = new TransportOptions();

    @Option(names = "--list", description = "list the transactions the ring accepts, with their class, and exit")
    boolean list;

    @Option(names = "--after-gsn", paramLabel = "GSN", description = "run the request only once its instance has"
            + " applied global request GSN (a reply's 'gsn N'): it then sees that request's writes")
    long afterGsn;

    @Option(names = "--id", paramLabel = "UUID", description = "the request's id: sent again with the same id, a request"
            + " that ran is answered from its record instead of running twice, so after an 'outcome unknown' answer this"
            + " learns the outcome (the answer names the id the client gave it); without it, the client makes one")
    String id;

    @Parameters(index = "0", arity = "0..1", paramLabel = "TRANSACTION", description = "the transaction")
    String transaction;

    @Parameters(index = "1..*", arity = "0..*", paramLabel = "PARAMETER",
            description = "its parameters: integers, decimals (with a '.'), or text (quote text that looks numeric: 's:42')")
    List<String> parameters = new ArrayList<>();

    @Override
    public Integer call() throws IOException {
        List<String> addresses = target.ring != null ? target.ring : addressesOf(target.cluster);
        if (!list && transaction == null) {
            System.err.println("gyro call: name a transaction (gyro call --list shows them)");
            return 2;
        }
        if (id != null) {
            try {
                java.util.UUID.fromString(id);
            } catch (IllegalArgumentException e) {
                System.err.println("gyro call: --id " + id + " is not a request id: a request id is a UUID, such as "
                        + java.util.UUID.randomUUID() + " (docs/decisions/37-request-ids.md)");
                return 2;
            }
        }
        List<Object> values = new ArrayList<>();
        for (String p : parameters) values.add(parse(p));
        // --cluster: the cluster's own client certificate (or plaintext if it runs --insecure); --ring: --tls-dir or --insecure
        Transport transport = target.cluster != null && security.tlsDir == null && !security.insecure
                ? ClusterCommand.clientTransport(target.cluster) : security.transport(Certificates.CLIENT);
        try (GyroClient client = GyroClient.connect(addresses, transport)) {
            if (list) {
                System.out.printf("%-24s %s%n", "transaction", "class");
                for (Map.Entry<String, RoutingTable.Route> r : client.routing().routes().entrySet())
                    System.out.printf("%-24s %s%n", r.getKey(), r.getValue().kind());
                return 0;
            }
            // Calls through one cluster directory form one session (docs/decisions/09-serializability-session.md): each
            // waits, at whichever instance runs it, until that instance applied the last global request an earlier call
            // saw.
            Path session = target.cluster == null ? null : sessionFile(target.cluster);
            long after = Math.max(afterGsn, session == null ? 0 : seenGsn(session));
            Request request = Request.of(transaction, values.toArray());
            if (id != null) request = request.withId(id);
            Reply r = client.call(request.after(after));
            System.out.println(r);
            if (session != null && r.gsn() > after) Files.writeString(session, r.gsn() + "\n");
            return r.ok() ? 0 : 1;
        }
    }

    /** Where {@code gyro call --cluster DIR} keeps the highest gsn its calls have seen. */
    static Path sessionFile(Path clusterDir) {
        return clusterDir.toAbsolutePath().resolve("call-session.gsn");
    }

    private static long seenGsn(Path session) {
        try {
            return Files.exists(session) ? Long.parseLong(Files.readString(session).strip()) : 0;
        } catch (IOException | NumberFormatException e) {
            return 0; // no session yet, or a damaged file: no wait
        }
    }

    /** The instances' client addresses, from the cluster.json of a cluster directory. */
    static List<String> addressesOf(Path dir) throws IOException {
        Path info = ClusterCommand.infoFile(dir.toAbsolutePath());
        if (!Files.exists(info))
            throw new IllegalArgumentException("no cluster in " + dir.toAbsolutePath() + " (no cluster.json): start one"
                    + " with gyro cluster start --dir " + dir);
        if (ClusterCommand.running(dir.toAbsolutePath()) == null)
            throw new IllegalArgumentException("the cluster in " + dir.toAbsolutePath() + " is not running");
        List<String> out = new ArrayList<>();
        for (JsonNode n : ClusterCommand.JSON.readTree(info.toFile()).path("instances")) out.add(n.get("address").asText());
        if (out.isEmpty()) throw new IllegalArgumentException(info + " lists no instances");
        return out;
    }

    static Object parse(String p) {
        if (p.startsWith("s:")) return p.substring(2);
        try {
            return Long.parseLong(p);
        } catch (NumberFormatException notLong) {
            try {
                if (p.contains(".")) return Double.parseDouble(p);
            } catch (NumberFormatException notDouble) {
                // text
            }
            return p;
        }
    }
}
