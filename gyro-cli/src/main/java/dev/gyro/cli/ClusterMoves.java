package dev.gyro.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gyro.client.GyroClient;
import dev.gyro.protocol.PartitionMap;
import dev.gyro.wire.Reply;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * {@code gyro cluster move} and {@code gyro cluster rebalance}: buckets moved with their rows between the instances of
 * a running cluster, while it serves (docs/decisions/43-bucket-moves.md). Each move is a request to the buckets' owner,
 * which runs it in the token's round; each prints what it moved, and the command ends with the map.
 */
final class ClusterMoves {

    private static final ObjectMapper JSON = new ObjectMapper();

    private ClusterMoves() {}

    @Command(name = "move", mixinStandardHelpOptions = true, description = "Move buckets, with their rows, to another"
            + " instance of the cluster running in DIR, while it serves.")
    static final class Move implements java.util.concurrent.Callable<Integer> {

        @Option(names = "--dir", defaultValue = "gyro-cluster", description = "the cluster's directory (default: ${DEFAULT-VALUE})")
        Path dir;

        @Option(names = "--buckets", required = true, split = ",", description = "the buckets to move (0 to 255), as 3,17,42")
        int[] buckets;

        @Option(names = "--to", required = true, description = "the instance that owns them afterwards")
        int to;

        @Override
        public Integer call() throws Exception {
            try (GyroClient client = connect(dir)) {
                if (client == null) return 3;
                long started = System.nanoTime();
                boolean ok = move(client, to, buckets, System.out);
                printMap(client.routing().map(), System.out, started);
                return ok ? 0 : 1;
            }
        }
    }

    @Command(name = "rebalance", mixinStandardHelpOptions = true, description = "Even out the buckets of the cluster"
            + " running in DIR over its instances (by count), moving each with its rows while the cluster serves.")
    static final class Rebalance implements java.util.concurrent.Callable<Integer> {

        @Option(names = "--dir", defaultValue = "gyro-cluster", description = "the cluster's directory (default: ${DEFAULT-VALUE})")
        Path dir;

        @Override
        public Integer call() throws Exception {
            try (GyroClient client = connect(dir)) {
                if (client == null) return 3;
                long started = System.nanoTime();
                int instances = client.routing().addresses().size();
                List<Step> plan = plan(client.routing().map(), instances);
                if (plan.isEmpty()) System.out.println("gyro cluster: the buckets are even already");
                for (Step s : plan) {
                    System.out.printf("gyro cluster: moving %d buckets from instance %d to instance %d ...%n",
                            s.buckets().length, s.from(), s.to());
                    if (!move(client, s.to(), s.buckets(), System.out)) {
                        printMap(client.routing().map(), System.out, started);
                        return 1;
                    }
                }
                printMap(client.routing().map(), System.out, started);
                return 0;
            }
        }
    }

    /** A move of a rebalance: {@code buckets} from {@code from} to {@code to}. */
    record Step(int from, int to, int[] buckets) {}

    /**
     * The moves that leave every instance of {@code instances} (ids 0 to instances - 1) with {@code buckets / instances}
     * buckets, or one more.
     */
    static List<Step> plan(PartitionMap map, int instances) {
        return plan(map, java.util.stream.IntStream.range(0, instances).boxed().toList());
    }

    /**
     * The moves that leave every instance of {@code members} with {@code buckets / members} buckets, or one more (the
     * first {@code buckets % members} of them by the number they hold now, then by id), and none at any other
     * instance: the fewest buckets moved, the last buckets of each surplus first.
     */
    static List<Step> plan(PartitionMap map, List<Integer> members) {
        int ids = Math.max(map.instances(), members.stream().mapToInt(Integer::intValue).max().orElse(0) + 1);
        int[][] held = new int[ids][];
        for (int i = 0; i < ids; i++) held[i] = map.bucketsOf(i);
        List<Integer> order = new ArrayList<>(members);
        order.sort((a, b) -> held[b].length != held[a].length ? held[b].length - held[a].length : a - b);
        int[] target = new int[ids]; // 0 for every instance that is no member
        for (int k = 0; k < order.size(); k++)
            target[order.get(k)] = map.buckets() / order.size() + (k < map.buckets() % order.size() ? 1 : 0);
        List<Step> steps = new ArrayList<>();
        int from = 0, taken = 0; // the next surplus bucket: held[from][target[from] + taken]
        for (int to : members) {
            int need = target[to] - held[to].length;
            while (need > 0) {
                while (held[from].length - target[from] - taken <= 0) {
                    from++;
                    taken = 0;
                }
                int n = Math.min(need, held[from].length - target[from] - taken);
                int at = target[from] + taken;
                steps.add(new Step(from, to, Arrays.copyOfRange(held[from], at, at + n)));
                taken += n;
                need -= n;
            }
        }
        return steps;
    }

    /** Moves {@code buckets} to {@code to}, printing each owner's answer; false if one was not OK. */
    static boolean move(GyroClient client, int to, int[] buckets, PrintStream out) {
        for (Reply r : client.moveBuckets(to, buckets)) {
            if (r.status() != Reply.Status.OK) {
                out.println("gyro cluster: move refused: " + r.status() + ": " + r.message());
                return false;
            }
            out.println("gyro cluster: " + r.values().get(0).toJava());
        }
        return true;
    }

    /** One line per instance: how many buckets it owns under {@code map}. */
    static void printMap(PartitionMap map, PrintStream out, long startedNanos) {
        StringBuilder s = new StringBuilder("gyro cluster: map version " + map.version() + " after "
                + (System.nanoTime() - startedNanos) / 1_000_000 + " ms:");
        for (int i = 0; i < map.instances(); i++) s.append(" instance ").append(i).append(' ')
                .append(map.bucketsOf(i).length).append(i + 1 < map.instances() ? " buckets," : " buckets");
        out.println(s);
    }

    /** A client of the cluster running in {@code dir}, with its client certificate; null (and why) if none runs. */
    private static GyroClient connect(Path dir) throws Exception {
        Path d = dir.toAbsolutePath();
        if (ClusterCommand.running(d) == null) {
            System.err.println("gyro cluster: nothing runs in " + d);
            return null;
        }
        JsonNode info = JSON.readTree(ClusterCommand.infoFile(d).toFile());
        List<String> addresses = new ArrayList<>();
        for (JsonNode n : info.get("instances")) addresses.add(n.get("address").asText());
        return GyroClient.connect(addresses, ClusterCommand.clientTransport(d));
    }
}
