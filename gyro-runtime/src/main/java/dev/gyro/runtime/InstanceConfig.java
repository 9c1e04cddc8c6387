package dev.gyro.runtime;

import dev.gyro.app.Application;
import dev.gyro.app.Classification;
import dev.gyro.protocol.ConveyorBeltConfig;
import dev.gyro.protocol.PartitionMap;

import dev.gyro.runtime.db.Dialect;
import dev.gyro.runtime.wan.LinkDelay;
import dev.gyro.runtime.wan.Wan;

import java.nio.file.Path;
import java.util.List;

/**
 * Configuration of one Gyro instance, validated once when built.
 *
 * @param self           this instance's id: its position in {@code addresses}, the ring order
 * @param addresses      host:port of every instance of the ring, in ring order
 * @param database       this instance's SQLite database file (one file per instance), or null when
 *                       {@code jdbcUrl} names the database
 * @param application    the application whose transactions it runs
 * @param classification how each transaction is classified and partitioned
 * @param partitionMap   bucket to instance
 * @param maxQueuedGlobals bound of the global request queue; more are refused as OVERLOADED
 * @param requestThreads threads that execute local requests concurrently
 * @param tickMillis     protocol timer resolution
 * @param jdbcUrl        this instance's database as a JDBC URL ({@code jdbc:postgresql://...},
 *                       {@code jdbc:mariadb://...}, {@code jdbc:sqlite:...}), or null when {@code database} is the
 *                       SQLite file; the URL picks the backend (issue 5)
 * @param capacity       the emulated server capacity every request's transaction passes through ({@link Capacity};
 *                       benchmarks only), {@link Capacity#PLAIN} when null
 * @param wan            where the ring's instances sit, for benchmarks' WAN emulation: messages to peers are delayed
 *                       by their link's one-way delay ({@link LinkDelay}); {@link Wan#OFF} (nothing delayed) when
 *                       null
 */
public record InstanceConfig(int self, List<String> addresses, Path database, Application application,
                             Classification classification, PartitionMap partitionMap, int maxQueuedGlobals,
                             int requestThreads, long tickMillis, String jdbcUrl, Capacity capacity,
                             Wan.Placement wan) {

    public InstanceConfig {
        addresses = List.copyOf(addresses);
        if (addresses.isEmpty()) throw new IllegalArgumentException("an instance needs the addresses of its ring");
        if (self < 0 || self >= addresses.size())
            throw new IllegalArgumentException("instance id " + self + " is not in the ring of " + addresses.size()
                    + " instances");
        for (String a : addresses) parsePort(a);
        if (database == null && (jdbcUrl == null || jdbcUrl.isBlank()))
            throw new IllegalArgumentException("no database given (a SQLite file or a JDBC URL)");
        if (database != null && jdbcUrl != null)
            throw new IllegalArgumentException("give the database as a SQLite file or as a JDBC URL, not both");
        if (jdbcUrl != null) Dialect.forTarget(jdbcUrl).jdbcUrl(jdbcUrl); // names a backend Gyro has
        if (application == null) throw new IllegalArgumentException("no application given");
        if (classification == null) classification = application.classification();
        if (partitionMap == null) partitionMap = PartitionMap.uniform(addresses.size());
        if (partitionMap.instances() > addresses.size())
            throw new IllegalArgumentException("the partition map routes to " + partitionMap.instances()
                    + " instances but the ring has " + addresses.size());
        if (requestThreads < 1) throw new IllegalArgumentException("requestThreads must be at least 1");
        if (tickMillis < 1) throw new IllegalArgumentException("tickMillis must be at least 1");
        if (maxQueuedGlobals < 1) throw new IllegalArgumentException("maxQueuedGlobals must be at least 1");
        if (capacity == null) capacity = Capacity.PLAIN;
        if (wan == null) wan = Wan.OFF.place(addresses.size());
        if (wan.instances() != addresses.size())
            throw new IllegalArgumentException("the WAN placement places " + wan.instances()
                    + " instances but the ring has " + addresses.size());
    }

    public static InstanceConfig of(int self, List<String> addresses, Path database, Application application) {
        return new InstanceConfig(self, addresses, database, application, null, null, 10_000, 64, 10, null, null, null);
    }

    /**
     * An instance whose database is {@code jdbcUrlOrFile}: a JDBC URL of any supported backend, or a SQLite file.
     */
    public static InstanceConfig of(int self, List<String> addresses, String jdbcUrlOrFile, Application application) {
        boolean url = jdbcUrlOrFile != null && jdbcUrlOrFile.strip().startsWith("jdbc:");
        return new InstanceConfig(self, addresses, url ? null : Path.of(jdbcUrlOrFile), application, null, null,
                10_000, 64, 10, url ? jdbcUrlOrFile.strip() : null, null, null);
    }

    public InstanceConfig withClassification(Classification c) {
        return new InstanceConfig(self, addresses, database, application, c, partitionMap, maxQueuedGlobals,
                requestThreads, tickMillis, jdbcUrl, capacity, wan);
    }

    /** This instance with an emulated server capacity (benchmarks: {@link Capacity}). */
    public InstanceConfig withCapacity(Capacity c) {
        return new InstanceConfig(self, addresses, database, application, classification, partitionMap,
                maxQueuedGlobals, requestThreads, tickMillis, jdbcUrl, c, wan);
    }

    /** This instance with its ring placed on an emulated WAN (benchmarks: {@link Wan}); {@link Wan#OFF} for none. */
    public InstanceConfig withWan(Wan.Placement w) {
        return new InstanceConfig(self, addresses, database, application, classification, partitionMap,
                maxQueuedGlobals, requestThreads, tickMillis, jdbcUrl, capacity, w);
    }

    /** What {@link dev.gyro.runtime.db.Database#open} opens: the JDBC URL, or the SQLite file. */
    public String databaseTarget() {
        return jdbcUrl != null ? jdbcUrl : database.toString();
    }

    /** The database for messages and logs, without a password the URL may carry. */
    public String describeDatabase() {
        return databaseTarget().replaceAll("(?i)(password=)[^&;]*", "$1***");
    }

    public ConveyorBeltConfig beltConfig() {
        // On an emulated WAN a resend timer shorter than its link's round trip would always fire: an acknowledgement
        // cannot come back sooner. Each timer is stretched by the round trip it waits for: the token's to the next
        // instance, a Want's to the farthest one (the holder may be anywhere).
        long next = roundTripMillis((self + 1) % addresses.size());
        long farthest = 0;
        for (int i = 0; i < addresses.size(); i++) farthest = Math.max(farthest, roundTripMillis(i));
        return new ConveyorBeltConfig(self, addresses.size(), maxQueuedGlobals, 500 + next, 200 + farthest);
    }

    private long roundTripMillis(int peer) {
        return wan.oneWay(self, peer).multipliedBy(2).toMillis();
    }

    public String address() {
        return addresses.get(self);
    }

    public int port() {
        return parsePort(address());
    }

    static int parsePort(String address) {
        int colon = address.lastIndexOf(':');
        try {
            if (colon < 1) throw new NumberFormatException();
            int port = Integer.parseInt(address.substring(colon + 1));
            if (port < 1 || port > 65535) throw new NumberFormatException();
            return port;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("address '" + address + "' is not host:port");
        }
    }
}
