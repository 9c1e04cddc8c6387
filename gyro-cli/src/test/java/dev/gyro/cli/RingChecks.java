package dev.gyro.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gyro.client.GyroClient;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/** What the tests of rings of {@code gyro instance} processes wait for and read: replies and statuses, not time. */
final class RingChecks {

    private RingChecks() {}

    /** Until {@code n} orders succeeded; the deadline only ends a hung test. */
    static void awaitOrders(AtomicLong ordersOk, long n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (ordersOk.get() < n) {
            if (System.nanoTime() > deadline)
                throw new AssertionError("waited 3 minutes for " + n + " orders; " + ordersOk.get() + " succeeded");
            Thread.sleep(5);
        }
    }

    /** Until the ring of {@code instances} (ids 0 to instances - 1) is quiet. */
    static void awaitQuiet(GyroClient client, int instances) throws Exception {
        awaitQuiet(client, java.util.stream.IntStream.range(0, instances).boxed().toList());
    }

    /** Until {@code members} are quiet: one gsn everywhere, the token parked, no global waiting for it anywhere. */
    static void awaitQuiet(GyroClient client, List<Integer> members) throws Exception {
        ObjectMapper json = new ObjectMapper();
        long deadline = System.currentTimeMillis() + 180_000;
        String last = "";
        while (System.currentTimeMillis() < deadline) {
            try {
                Set<Long> gsns = new HashSet<>();
                int parked = 0;
                long queued = 0;
                StringBuilder all = new StringBuilder();
                for (int i : members) {
                    JsonNode s = json.readTree(client.status(i));
                    gsns.add(s.get("lastGsn").asLong());
                    queued += s.get("queuedGlobals").asLong();
                    if (s.get("role").asText().equals("PARKED")) parked++;
                    all.append(s).append('\n');
                }
                last = all.toString();
                if (gsns.size() == 1 && parked == 1 && queued == 0) return;
            } catch (RuntimeException e) {
                last = e.toString();
            }
            Thread.sleep(50);
        }
        throw new AssertionError("ring did not become quiet; last status:\n" + last);
    }

    /** The single number {@code sql} reads. */
    static long scalar(Connection c, String sql) throws Exception {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
