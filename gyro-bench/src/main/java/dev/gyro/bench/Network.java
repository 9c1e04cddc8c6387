package dev.gyro.bench;

import java.util.List;

/**
 * Where a setting's database instances and clients are (issue 6, item 3): all on one LAN (this machine's loopback),
 * or at WAN sites of the paper's Section VII-A, with clients at every site sending to their nearest instance.
 *
 * <p>The WAN emulation itself (Table II's latencies applied to every message between sites) belongs to the
 * runtime's deployment {@link SystemUnderTest.Setup}; until it is there, {@link #unavailableReason()} says so and the
 * harness records WAN points as not run instead of measuring them on a LAN.
 *
 * @param instanceSites where instance i runs, in the paper's order of adding sites (G, J, US, B, A); empty on a LAN
 * @param clientSites   where the client sessions are (session i at {@code clientSites[i % size]}); empty on a LAN
 */
public record Network(String name, List<String> instanceSites, List<String> clientSites) {

    /** The paper's sites, in the order it adds them (Section VII-A): Germany, Japan, US east, Brazil, Australia. */
    public static final List<String> SITES = List.of("G", "J", "US", "B", "A");

    public static final Network LAN = new Network("lan", List.of(), List.of());

    public Network {
        instanceSites = List.copyOf(instanceSites);
        clientSites = List.copyOf(clientSites);
        for (String s : instanceSites) if (!SITES.contains(s)) throw new IllegalArgumentException("unknown site " + s + " (known: " + SITES + ")");
        for (String s : clientSites) if (!SITES.contains(s)) throw new IllegalArgumentException("unknown site " + s + " (known: " + SITES + ")");
    }

    /** Instances at the first {@code sites} of {@link #SITES}, clients at all five (the paper's WAN runs). */
    public static Network wan(int sites) {
        if (sites < 1 || sites > SITES.size()) throw new IllegalArgumentException("1 to 5 sites, not " + sites);
        return new Network("wan", SITES.subList(0, sites), SITES);
    }

    public boolean isWan() {
        return !instanceSites.isEmpty();
    }

    public String describe() {
        return isWan() ? "WAN: instances at " + String.join(", ", instanceSites) + "; clients at "
                + String.join(", ", clientSites) + " (the paper's Table II latencies)" : "LAN (loopback, one machine)";
    }

    /** Why points on this network cannot be measured in this build, or null when they can. */
    public String unavailableReason() {
        return isWan() ? "needs WAN emulation (the paper's Table II latencies between sites), which this build does "
                + "not have yet" : null;
    }
}
