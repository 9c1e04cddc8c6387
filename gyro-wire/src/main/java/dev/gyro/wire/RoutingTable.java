package dev.gyro.wire;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gyro.protocol.PartitionMap;
import dev.gyro.protocol.Value;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything needed to route a request: the partition map, the instances' addresses, and for each transaction
 * its class and the positions of its partitioning parameters. Instances publish it (Describe); clients and
 * instances route with the same code, so a request meets its partition's instance wherever it enters. The map is the
 * one part that changes: a bucket move makes a newer version, which the table {@link #adopt}s (never an older one;
 * docs/decisions/43-bucket-moves.md).
 */
public final class RoutingTable {

    /** How one transaction routes. {@code keys} are parameter positions (0-based), in classification order. */
    public record Route(String transaction, String kind, int[] keys) {}

    /** Where one request goes. {@code owner} runs it; {@code global} says whether it takes the token. */
    public record Decision(int owner, boolean global) {}

    private volatile PartitionMap map;
    private volatile List<String> addresses;
    /**
     * The ring epoch of the last change of an instance's address that this table knows (docs/decisions/47-new-member.md);
     * 0 while none. A table of a higher one names the newer addresses.
     */
    private volatile long addressEpoch;
    private final Map<String, Route> routes;

    public RoutingTable(PartitionMap map, List<String> addresses, List<Route> routes) {
        this.map = map;
        this.addresses = List.copyOf(addresses);
        Map<String, Route> m = new LinkedHashMap<>();
        for (Route r : routes) m.put(r.transaction(), r);
        this.routes = m;
        if (map.instances() > addresses.size())
            throw new IllegalArgumentException("partition map routes to " + map.instances() + " instances but only "
                    + addresses.size() + " addresses are known");
    }

    public PartitionMap map() { return map; }

    /**
     * Routes by {@code newer} from now on, if its version is higher than the present map's; returns whether it did.
     * Maps only move forward, so two callers adopting in either order end on the newest.
     */
    /**
     * Knows the instances of {@code newer}'s list too, when it is longer (instances that joined the ring,
     * docs/decisions/44-ring-changes.md), and its addresses when it knows of a later change of an instance's address
     * (docs/decisions/47-new-member.md), then routes by its map if it is newer. Returns whether anything changed.
     */
    public synchronized boolean adopt(RoutingTable newer) {
        List<String> mine = addresses, theirs = newer.addresses();
        List<String> next = new ArrayList<>(newer.addressEpoch > addressEpoch ? theirs : mine);
        List<String> longer = theirs.size() > mine.size() ? theirs : mine;
        for (int i = next.size(); i < longer.size(); i++) next.add(longer.get(i));
        boolean changed = !next.equals(mine);
        addresses = List.copyOf(next);
        addressEpoch = Math.max(addressEpoch, newer.addressEpoch);
        return adopt(newer.map()) || changed;
    }

    /**
     * Instance {@code id} is reached at {@code address} from now on, as the ring change of epoch {@code epoch} says
     * (docs/decisions/47-new-member.md). Returns whether it changed anything.
     */
    public synchronized boolean moveAddress(int id, String address, long epoch) {
        if (id < 0 || id >= addresses.size())
            throw new IllegalArgumentException("instance " + id + " is not one of the " + addresses.size() + " known");
        if (epoch < addressEpoch) return false; // a later change is known already
        addressEpoch = epoch;
        if (addresses.get(id).equals(address)) return false;
        List<String> moved = new ArrayList<>(addresses);
        moved.set(id, address);
        addresses = List.copyOf(moved);
        return true;
    }

    /** The ring epoch of the last change of an instance's address this table knows; 0 while none. */
    public long addressEpoch() {
        return addressEpoch;
    }

    /** Knows the instances of {@code longer} from now on: the same first ones, and those that joined since. */
    public synchronized boolean adoptAddresses(List<String> longer) {
        if (longer.size() <= addresses.size()) return false;
        if (!longer.subList(0, addresses.size()).equals(addresses))
            throw new IllegalArgumentException("instances " + longer + " do not begin with this table's " + addresses);
        addresses = List.copyOf(longer);
        return true;
    }

    public synchronized boolean adopt(PartitionMap newer) {
        if (newer.version() <= map.version()) return false;
        if (newer.instances() > addresses.size())
            throw new IllegalArgumentException("partition map version " + newer.version() + " routes to "
                    + newer.instances() + " instances but only " + addresses.size() + " addresses are known");
        map = newer;
        return true;
    }

    /**
     * The bucket of a request's home key (its first partitioning parameter), or -1 when it has none or cannot be
     * routed: the bucket whose rows it may write where it runs.
     */
    public int homeBucket(String transaction, List<Value> parameters) {
        Route r = routes.get(transaction);
        if (r == null || r.keys().length == 0 || r.keys()[0] >= parameters.size()) return -1;
        return map.bucketOf(parameters.get(r.keys()[0]));
    }

    public List<String> addresses() { return addresses; }

    public Route route(String transaction) { return routes.get(transaction); }

    /** Every transaction the instances accept, by name. */
    public java.util.SortedMap<String, Route> routes() { return new java.util.TreeMap<>(routes); }

    /**
     * Decides where a request runs, or returns null when it cannot be decided here (unknown transaction, too few
     * parameters): then any instance may take it and answer with the exact error.
     *
     * @param entry the instance the request entered at; runs transactions that have no partitioning parameter
     */
    public Decision decide(String transaction, List<Value> parameters, int entry) {
        Route r = routes.get(transaction);
        if (r == null) return null;
        for (int k : r.keys()) if (k >= parameters.size()) return null;
        boolean global = !r.kind().equals("local");
        if (r.keys().length == 0) return new Decision(entry, global);
        PartitionMap m = map; // one version for the whole decision
        int owner = m.instanceOf(parameters.get(r.keys()[0]));
        if (r.kind().equals("local-or-global")) {
            // Double key (paper Section VII-A, RUBiS): local exactly when both keys route to the same instance.
            global = m.instanceOf(parameters.get(r.keys()[1])) != owner;
        }
        return new Decision(owner, global);
    }

    // ---------------------------------------------------------------- JSON (the Describe method's body)

    private static final ObjectMapper JSON = new ObjectMapper();

    public byte[] toJson() {
        PartitionMap map = this.map;
        ObjectNode root = JSON.createObjectNode();
        root.put("mapVersion", map.version());
        ArrayNode owners = root.putArray("owners");
        for (int b = 0; b < map.buckets(); b++) owners.add(map.ownerOfBucket(b));
        ArrayNode addr = root.putArray("instances");
        addresses.forEach(addr::add);
        root.put("addressEpoch", addressEpoch);
        ArrayNode txs = root.putArray("transactions");
        for (Route r : routes.values()) {
            ObjectNode t = txs.addObject();
            t.put("name", r.transaction());
            t.put("class", r.kind());
            ArrayNode keys = t.putArray("keys");
            for (int k : r.keys()) keys.add(k);
        }
        try {
            return JSON.writeValueAsBytes(root);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    public static RoutingTable fromJson(byte[] json) {
        try {
            JsonNode root = JSON.readTree(json);
            JsonNode ownersNode = root.get("owners");
            int[] owners = new int[ownersNode.size()];
            for (int i = 0; i < owners.length; i++) owners[i] = ownersNode.get(i).asInt();
            List<String> addresses = new ArrayList<>();
            root.get("instances").forEach(a -> addresses.add(a.asText()));
            List<Route> routes = new ArrayList<>();
            for (JsonNode t : root.get("transactions")) {
                JsonNode keysNode = t.get("keys");
                int[] keys = new int[keysNode.size()];
                for (int i = 0; i < keys.length; i++) keys[i] = keysNode.get(i).asInt();
                routes.add(new Route(t.get("name").asText(), t.get("class").asText(), keys));
            }
            RoutingTable t = new RoutingTable(new PartitionMap(root.get("mapVersion").asLong(), owners), addresses, routes);
            JsonNode epoch = root.get("addressEpoch");
            if (epoch != null) t.addressEpoch = epoch.asLong();
            return t;
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("malformed routing table: " + e.getMessage(), e);
        }
    }
}
