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

        @picocli.CommandLine.Mixin
        Target target = new Target();

        @Option(names = "--buckets", required = true, split = ",", description = "the buckets to move (0 to 255), as 3,17,42")
        int[] buckets;

        @Option(names = "--to", required = true, description = "the instance that owns them afterwards")
        int to;

        @Override
        public Integer call() throws Exception {
            try (GyroClient client = target.connect()) {
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

        @picocli.CommandLine.Mixin
        Target target = new Target();

        @Option(names = "--by", defaultValue = "count", paramLabel = "count|load", description = "what to even out:"
                + " the buckets' count, or the local requests they took over --window (a hot instance gives its"
                + " busiest buckets to the coolest) (default: ${DEFAULT-VALUE})")
        String by;

        @Option(names = "--window", defaultValue = "10", paramLabel = "SECONDS", description = "with --by load: how long"
                + " the instances' requests are counted before the plan (default: ${DEFAULT-VALUE})")
        int window;

        @Option(names = "--remove", paramLabel = "I", description = "even out over the other members, then take"
                + " instance I out of the ring (for instances run with gyro instance: stop its process afterwards)")
        Integer remove;

        @Override
        public Integer call() throws Exception {
            try (GyroClient client = target.connect()) {
                if (client == null) return 3;
                long started = System.nanoTime();
                List<Integer> members = members(client);
                if (remove != null && !members.remove(remove)) {
                    System.err.println("gyro cluster: --remove " + remove + ": no member of the ring " + members);
                    return 2;
                }
                if (members.isEmpty()) {
                    System.err.println("gyro cluster: --remove " + remove + ": the ring's only member");
                    return 2;
                }
                List<Step> plan;
                if (by.equals("load")) {
                    if (remove != null) {
                        System.err.println("gyro cluster: --remove moves every bucket of an instance: not with --by load");
                        return 2;
                    }
                    System.out.printf("gyro cluster: counting each bucket's local requests for %d s ...%n", window);
                    long[] before = bucketRequests(client, members);
                    Thread.sleep(window * 1000L); // a sample of the load: the window is what the user asked
                    long[] load = bucketRequests(client, members);
                    for (int b = 0; b < load.length; b++) load[b] -= before[b];
                    client.refreshRouting(members.get(0));
                    PartitionMap map = client.routing().map();
                    System.out.println("gyro cluster: local requests/s by instance: " + describeLoad(map, members, load,
                            window));
                    plan = planByLoad(map, members, load);
                    if (plan.isEmpty()) System.out.println("gyro cluster: the load is even already (or no bucket's"
                            + " move would even it out more)");
                } else if (by.equals("count")) {
                    plan = plan(client.routing().map(), members);
                    if (plan.isEmpty()) System.out.println("gyro cluster: the buckets are even already");
                } else {
                    System.err.println("gyro cluster: --by " + by + ": count or load");
                    return 2;
                }
                for (Step s : plan) {
                    System.out.printf("gyro cluster: moving %d buckets from instance %d to instance %d ...%n",
                            s.buckets().length, s.from(), s.to());
                    if (!move(client, s.to(), s.buckets(), System.out)) {
                        printMap(client.routing().map(), System.out, started);
                        return 1;
                    }
                }
                if (remove != null) {
                    System.out.println("gyro cluster: instance " + remove + " owns no bucket now; it leaves the ring ...");
                    Reply left = client.session(members.get(0)).call(dev.gyro.wire.RingRequest.leave(remove));
                    if (left.status() != Reply.Status.OK) {
                        System.out.println("gyro cluster: leave refused: " + left.status() + ": " + left.message());
                        return 1;
                    }
                    System.out.println("gyro cluster: " + left.values().get(0).toJava() + "; once instance " + remove
                            + " applied it (gsn " + left.gsn() + ") its process may stop");
                }
                printMap(client.routing().map(), System.out, started);
                return 0;
            }
        }
    }

    /**
     * Which cluster: one {@code gyro cluster start} runs in a directory, or a ring of {@code gyro instance} processes
     * reached at some of its addresses.
     */
    static final class Target {

        @Option(names = "--dir", defaultValue = "gyro-cluster", description = "the directory of a cluster started with"
                + " gyro cluster start (default: ${DEFAULT-VALUE})")
        Path dir;

        @Option(names = "--ring", split = ",", paramLabel = "HOST:PORT", description = "instead: the addresses of the"
                + " instances of a ring run with gyro instance (as their --ring), with --tls-dir or --insecure")
        List<String> ring;

        @picocli.CommandLine.Mixin
        TransportOptions security = new TransportOptions();

        /** A client of the cluster; null (and why) if none runs in the directory. */
        GyroClient connect() throws Exception {
            if (ring != null) return GyroClient.connect(ring, security.transport(dev.gyro.wire.tls.Certificates.CLIENT));
            return ClusterMoves.connect(dir);
        }
    }

    /** The ring's members, as the first instance that answers says ({@code members} of its status). */
    static List<Integer> members(GyroClient client) throws Exception {
        int n = client.routing().addresses().size();
        Exception last = null;
        for (int i = 0; i < n; i++) {
            try {
                JsonNode s = JSON.readTree(client.status(i));
                List<Integer> out = new ArrayList<>();
                if (s.has("members")) for (JsonNode m : s.get("members")) out.add(m.asInt());
                else for (int k = 0; k < n; k++) out.add(k);
                return out;
            } catch (RuntimeException e) {
                last = e; // that instance is down: ask the next
            }
        }
        throw new IllegalStateException("no instance of the ring answers: " + last);
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

    /**
     * The moves that even out {@code load} (per bucket: the local requests it took) over {@code members}: again and
     * again the busiest member gives the bucket whose load comes nearest half the gap to the least busy one, while that
     * narrows the gap, until the busiest is within 10% of the mean (or {@link #MOST_MOVED} buckets moved). Buckets of
     * one pair go as one step.
     */
    static List<Step> planByLoad(PartitionMap map, List<Integer> members, long[] load) {
        int ids = Math.max(map.instances(), members.stream().mapToInt(Integer::intValue).max().orElse(0) + 1);
        long[] at = new long[ids];
        List<List<Integer>> held = new ArrayList<>();
        for (int i = 0; i < ids; i++) held.add(new ArrayList<>());
        for (int b = 0; b < map.buckets(); b++) {
            int owner = map.ownerOfBucket(b);
            held.get(owner).add(b);
            at[owner] += load[b];
        }
        long total = 0;
        for (int m : members) total += at[m];
        double mean = (double) total / members.size();
        java.util.LinkedHashMap<List<Integer>, List<Integer>> moves = new java.util.LinkedHashMap<>();
        for (int moved = 0; moved < MOST_MOVED && total > 0; moved++) {
            int hot = members.get(0), cold = members.get(0);
            for (int m : members) {
                if (at[m] > at[hot]) hot = m;
                if (at[m] < at[cold]) cold = m;
            }
            if (at[hot] <= mean * 1.1) break;
            long gap = at[hot] - at[cold];
            int best = -1;
            for (int b : held.get(hot))
                if (load[b] > 0 && load[b] < gap && (best < 0 || Math.abs(2 * load[b] - gap) < Math.abs(2 * load[best] - gap)))
                    best = b;
            if (best < 0) break;
            held.get(hot).remove(Integer.valueOf(best));
            held.get(cold).add(best);
            at[hot] -= load[best];
            at[cold] += load[best];
            moves.computeIfAbsent(List.of(hot, cold), k -> new ArrayList<>()).add(best);
        }
        List<Step> steps = new ArrayList<>();
        moves.forEach((pair, buckets) -> steps.add(new Step(pair.get(0), pair.get(1),
                buckets.stream().mapToInt(Integer::intValue).sorted().toArray())));
        return steps;
    }

    /** The most buckets one rebalance by load moves. */
    static final int MOST_MOVED = 64;

    /** Per bucket: the local requests its owner among {@code members} took (the instances' {@code bucketRequests}). */
    static long[] bucketRequests(GyroClient client, List<Integer> members) throws Exception {
        long[] out = null;
        for (int m : members) {
            JsonNode counts = JSON.readTree(client.status(m)).get("bucketRequests");
            if (counts == null) throw new IllegalStateException("instance " + m + " does not count its buckets' requests"
                    + " (an earlier version)");
            if (out == null) out = new long[counts.size()];
            for (int b = 0; b < counts.size() && b < out.length; b++) out[b] += counts.get(b).asLong();
        }
        return out;
    }

    private static String describeLoad(PartitionMap map, List<Integer> members, long[] load, int seconds) {
        StringBuilder s = new StringBuilder();
        for (int m : members) {
            long sum = 0;
            for (int b : map.bucketsOf(m)) sum += load[b];
            s.append(s.length() == 0 ? "" : ", ").append("instance ").append(m).append(' ')
                    .append(String.format(java.util.Locale.ROOT, "%.0f", (double) sum / Math.max(1, seconds)));
        }
        return s.toString();
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
