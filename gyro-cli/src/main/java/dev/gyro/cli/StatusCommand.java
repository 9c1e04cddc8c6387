package dev.gyro.cli;

import dev.gyro.wire.RingStatus;
import dev.gyro.wire.Transport;
import dev.gyro.wire.tls.Certificates;
import io.grpc.ManagedChannel;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code gyro status --ring A,B,C}: asks every instance of a ring for its status (the Status method, over the cluster's
 * transport) and prints one line each; {@code gyro cluster status --dir D} prints the same table for a cluster started
 * by {@code gyro cluster start}.
 */
@Command(name = "status", mixinStandardHelpOptions = true,
        description = "Ask every instance of a running ring how it is and print a table: instance, address, role, "
                + "last gsn, queued globals, requests/s, up, db-down or unreachable. Exits 4 when an instance does "
                + "not answer, 5 when one's database is down.")
final class StatusCommand implements Callable<Integer> {

    /** Exit status when some instance did not answer. */
    static final int SOME_UNREACHABLE = 4;
    /** Exit status when every instance answered but one's database is down (unreachable, or work on it retried). */
    static final int DATABASE_DOWN = 5;

    @Option(names = "--ring", required = true, split = ",", paramLabel = "HOST:PORT",
            description = "host:port of every instance, in ring order")
    List<String> ring;

    @picocli.CommandLine.Mixin
    TransportOptions security = new TransportOptions();

    @Override
    public Integer call() {
        return print(System.out, ring, security.transport(Certificates.CLIENT));
    }

    /**
     * Asks every instance at {@code addresses} and prints the table.
     *
     * @return 0 when every instance answered and none's database is down, {@link #SOME_UNREACHABLE} when some
     *         instance did not answer, {@link #DATABASE_DOWN} when all did but some instance's database is down
     */
    static int print(PrintStream out, List<String> addresses, Transport transport) {
        List<ManagedChannel> channels = new ArrayList<>();
        for (String a : addresses) channels.add(transport.channel(a));
        List<RingStatus.Entry> entries;
        try {
            entries = RingStatus.ask(channels, addresses, Duration.ofSeconds(5)); // a loaded machine connects slowly
        } finally {
            channels.forEach(ManagedChannel::shutdownNow);
        }
        int holder = RingStatus.tokenHolder(entries);
        out.printf("%-8s  %-21s  %-9s  %8s  %14s  %-19s  %-11s  %s%n", "instance", "address", "role", "last gsn",
                "queued globals", "requests/s (L+G)", "state", "token");
        int down = 0;
        int databaseDown = 0;
        for (RingStatus.Entry e : entries) {
            String rates = e.up() ? String.format(Locale.ROOT, "%.1f + %.1f", e.decimal("localPerSecond"),
                    e.decimal("globalPerSecond")) : "-";
            boolean dbDown = e.up() && e.status().path("databaseDown").asBoolean();
            String state = !e.up() ? "unreachable: " + e.error()
                    : dbDown ? "db-down: database " + e.status().path("database").asText()
                    : e.status().path("ringBroken").asBoolean() ? "up, ring broken: " + broken(e) : "up";
            if (dbDown && e.status().path("ringBroken").asBoolean()) state += "; ring broken: " + broken(e);
            if (!e.up()) down++;
            if (dbDown) databaseDown++;
            out.printf("%-8d  %-21s  %-9s  %8s  %14s  %-19s  %-11s  %s%n", e.instance(), e.address(), e.role(),
                    e.up() ? Long.toString(e.number("lastGsn")) : "-", e.up() ? Long.toString(e.number("queuedGlobals")) : "-",
                    rates, state, e.instance() == holder ? "holds the token" : "");
        }
        out.printf("%d of %d instances up%s; %s%n", entries.size() - down, entries.size(),
                databaseDown == 0 ? "" : ", " + databaseDown + " with its database down (db-down)",
                holder < 0 ? "no instance that answered knows where the token is" : "token at instance " + holder);
        return down > 0 ? SOME_UNREACHABLE : databaseDown > 0 ? DATABASE_DOWN : 0;
    }

    private static String broken(RingStatus.Entry e) {
        List<String> parts = new ArrayList<>();
        for (var u : e.status().path("unreachable"))
            parts.add("instance " + u.path("instance").asInt() + " unreachable since " + u.path("since").asText());
        var token = e.status().path("token");
        if (token.has("acknowledged") && !token.path("acknowledged").asBoolean())
            parts.add("token passed to instance " + token.path("passedTo").asInt() + " at "
                    + token.path("passedAt").asText() + " not acknowledged");
        return String.join("; ", parts);
    }
}
