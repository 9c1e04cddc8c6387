package dev.gyro.emulation.wan;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The geography of the paper's WAN experiments (Section VII-A and Table II), for benchmarks: five sites, the
 * latency between every two of them, and where instances and clients sit. Immutable.
 *
 * <p><b>Round trips, halved.</b> Table II's "inter-site latencies among servers" are round-trip times, as ping
 * reports them: they match the round trips measured between those EC2 regions (Frankfurt to N. Virginia about
 * 90 ms; Frankfurt to Sydney about 300 ms), and read as one-way times they would be twice what fibre allows
 * (Germany to Australia would take 628 ms there and back). So a message between two sites is delayed by half of
 * the table's figure, and a request and its reply together pay the whole figure.
 *
 * <p><b>Intra-site latency.</b> The paper gives it as "about 20 ms" (also a round trip). It is emulated by default,
 * because it is what a client pays to reach the instance at its own site, and it sets the floor of the paper's
 * WAN latencies (Table III: 25 ms and 29 ms with an instance at every site); {@link #withIntraSiteRoundTripMillis}
 * changes it (0 turns it off). It also separates two instances placed at one site (more than five instances).
 *
 * <p>{@link #OFF} is no emulation: every delay is zero and a cluster given it creates no scheduler at all.
 */
public final class Wan {

    /** Table II of the paper, in milliseconds, round trips; rows and columns in {@link Site} order (G, J, US, B, A). */
    private static final long[][] TABLE_II_ROUND_TRIP_MILLIS = {
            //  G    J   US    B    A
            {   0, 253,  92, 193, 314}, // Germany
            { 253,   0, 153, 282, 188}, // Japan
            {  92, 153,   0, 145, 229}, // US east
            { 193, 282, 145,   0, 322}, // Brazil
            { 314, 188, 229, 322,   0}, // Australia
    };

    /** "The intra-site latency [...] is about 20 ms" (Section VII-A), a round trip. */
    public static final long PAPER_INTRA_SITE_ROUND_TRIP_MILLIS = 20;

    /** No WAN: nothing is delayed. */
    public static final Wan OFF = new Wan(false, 0);

    private final boolean emulated;
    private final long intraSiteRoundTripMillis;

    private Wan(boolean emulated, long intraSiteRoundTripMillis) {
        this.emulated = emulated;
        this.intraSiteRoundTripMillis = intraSiteRoundTripMillis;
    }

    /** The paper's WAN: Table II between sites, 20 ms round trip within a site. */
    public static Wan paper() {
        return new Wan(true, PAPER_INTRA_SITE_ROUND_TRIP_MILLIS);
    }

    /** This WAN with another round trip within one site (0: none). */
    public Wan withIntraSiteRoundTripMillis(long millis) {
        if (!emulated) throw new IllegalStateException("WAN emulation is off: there is no intra-site latency to set");
        if (millis < 0) throw new IllegalArgumentException("intra-site round trip must not be negative, got " + millis);
        return new Wan(true, millis);
    }

    /** False for {@link #OFF}. */
    public boolean emulated() {
        return emulated;
    }

    public long intraSiteRoundTripMillis() {
        return intraSiteRoundTripMillis;
    }

    /** What a message from {@code a} to {@code b} and its answer back pay together: Table II, or intra-site. */
    public long roundTripMillis(Site a, Site b) {
        if (!emulated) return 0;
        return a == b ? intraSiteRoundTripMillis : TABLE_II_ROUND_TRIP_MILLIS[a.ordinal()][b.ordinal()];
    }

    /** The delay of one message from {@code a} to {@code b}: half the round trip. */
    public Duration oneWay(Site a, Site b) {
        return Duration.ofNanos(roundTripMillis(a, b) * 1_000_000 / 2);
    }

    /**
     * Instance {@code i} at the {@code i}-th site in the paper's order (G, J, US, B, A), as the paper adds
     * locations. Beyond five instances the order starts again (the sixth is a second instance in Germany, the
     * seventh a second in Japan, ...); two instances at one site are the intra-site latency apart.
     */
    public Placement place(int instances) {
        if (instances < 1) throw new IllegalArgumentException("a placement needs at least one instance, got " + instances);
        List<Site> sites = new ArrayList<>();
        for (int i = 0; i < instances; i++) sites.add(Site.values()[i % Site.values().length]);
        return new Placement(this, sites);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Wan w && w.emulated == emulated && w.intraSiteRoundTripMillis == intraSiteRoundTripMillis;
    }

    @Override
    public int hashCode() {
        return Objects.hash(emulated, intraSiteRoundTripMillis);
    }

    @Override
    public String toString() {
        return emulated ? "WAN (paper's Table II, intra-site round trip " + intraSiteRoundTripMillis + " ms)"
                : "no WAN emulation";
    }

    /**
     * Where a deployment's instances sit, and where its clients sit: the paper uses "five client machines in every
     * configuration, one for each location", client threads spread equally over them, each client directing its
     * requests "to the closest Gyro instance" (Section VII-A). Immutable.
     */
    public static final class Placement {

        private final Wan wan;
        private final List<Site> sites;

        private Placement(Wan wan, List<Site> sites) {
            this.wan = wan;
            this.sites = List.copyOf(sites);
        }

        public Wan wan() {
            return wan;
        }

        public boolean emulated() {
            return wan.emulated();
        }

        public int instances() {
            return sites.size();
        }

        /** The site of every instance, in instance order. */
        public List<Site> sites() {
            return sites;
        }

        public Site siteOf(int instance) {
            if (instance < 0 || instance >= sites.size())
                throw new IllegalArgumentException("instance " + instance + " is not one of the " + sites.size()
                        + " placed");
            return sites.get(instance);
        }

        /** The delay of one message from instance {@code from} to instance {@code to} (zero to itself). */
        public Duration oneWay(int from, int to) {
            return from == to ? Duration.ZERO : wan.oneWay(siteOf(from), siteOf(to));
        }

        /** What the token's trip around the whole ring (0, 1, ..., n-1, 0) costs in link delays alone. */
        public Duration tokenRound() {
            Duration sum = Duration.ZERO;
            for (int i = 0; i < sites.size(); i++) sum = sum.plus(oneWay(i, (i + 1) % sites.size()));
            return sum;
        }

        /**
         * The site of client session {@code session} (0, 1, 2, ...): sessions go round the five sites in the paper's
         * order, so client threads are spread equally over the five client machines whatever the number of
         * instances.
         */
        public static Site clientSite(int session) {
            if (session < 0) throw new IllegalArgumentException("session numbers start at 0, got " + session);
            return Site.values()[session % Site.values().length];
        }

        /**
         * The instances closest to a client at {@code client}: those at its own site when there are any, else those
         * at the site with the smallest Table II latency from it. In instance order; never empty.
         */
        public List<Integer> nearestInstances(Site client) {
            long best = Long.MAX_VALUE;
            List<Integer> nearest = new ArrayList<>();
            for (int i = 0; i < sites.size(); i++) {
                // Own site first, whatever the intra-site latency is set to: the paper's clients use the local server.
                long distance = sites.get(i) == client ? -1 : Wan.paper().roundTripMillis(client, sites.get(i));
                if (distance < best) {
                    best = distance;
                    nearest.clear();
                }
                if (distance == best) nearest.add(i);
            }
            return List.copyOf(nearest);
        }

        /** The lowest-numbered of {@link #nearestInstances}. */
        public int nearestInstance(Site client) {
            return nearestInstances(client).get(0);
        }

        /**
         * The instance client session {@code session} sends its requests to: the nearest one to its
         * {@link #clientSite}; where several instances share that site, the site's sessions take them in turn.
         */
        public int entryInstance(int session) {
            List<Integer> nearest = nearestInstances(clientSite(session));
            return nearest.get((session / Site.values().length) % nearest.size());
        }

        /** The delay of one message between a client at {@code client} and instance {@code instance}, either way. */
        public Duration clientOneWay(Site client, int instance) {
            return wan.oneWay(client, siteOf(instance));
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Placement p && p.wan.equals(wan) && p.sites.equals(sites);
        }

        @Override
        public int hashCode() {
            return Objects.hash(wan, sites);
        }

        @Override
        public String toString() {
            StringBuilder b = new StringBuilder();
            for (Site s : sites) b.append(b.length() == 0 ? "" : " ").append(s.abbreviation());
            return "instances at " + b + " (" + wan + ")";
        }
    }
}
