package dev.gyro.servers;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free TCP ports for servers started on this machine (Gyro instances, throwaway database servers).
 *
 * <p>Why not {@code new ServerSocket(0)}: the kernel hands that out of its ephemeral range (32768-60999 on Linux), the
 * same range every outgoing connection's local port comes from, so between the probe and the server's own bind a
 * JDBC or gRPC connection may take the port. These ports come from below that range, where only listeners live, and
 * the ports of one call are held together while probing, so they are distinct. Ports handed out are not handed out
 * again by this process until most of the range has been (a cluster takes its instances' ports, then their HTTP
 * ports, before anything binds them: the second call must not return a port of the first). Nor by another process
 * that takes its ports here: each port handed out is reserved by a lock on a file of its own in the temporary
 * directory, held until this process ends (or starts over), because two processes probing at once (test JVMs side by
 * side) would otherwise both find a port free that neither has bound yet.
 */
public final class FreePorts {

    static final int LOW = 20_000, HIGH = 32_000;

    /** Ports this process handed out, not to be handed out again while others are left. */
    private static final java.util.Set<Integer> GIVEN = new java.util.HashSet<>();

    /**
     * The reservations of the ports handed out last; older ones are let go (a port is bound within seconds of being
     * handed out, and each reservation holds a file open).
     */
    private static final java.util.ArrayDeque<Reservation> HELD = new java.util.ArrayDeque<>();
    static final int MOST_HELD = 256;

    /** A port's reservation: its file's lock, null when no reservation could be made (no temporary directory). */
    private record Reservation(java.nio.channels.FileLock lock) {
        void release() {
            if (lock != null) closeQuietly(lock.channel()); // closing the channel releases its lock
        }
    }

    /** Where the reservations are: one file per port, locked by the process that took it (until it ends). */
    private static final java.nio.file.Path RESERVED = java.nio.file.Path.of(System.getProperty("java.io.tmpdir"),
            "gyro-free-ports");

    private FreePorts() {}

    public static int take() throws IOException {
        return take(1).get(0);
    }

    /** {@code n} distinct ports that nothing listened on (on any address) a moment ago. */
    public static synchronized List<Integer> take(int n) throws IOException {
        if (GIVEN.size() > (HIGH - LOW) / 2) { // long runs: start over rather than run dry
            GIVEN.clear();
        }
        List<ServerSocket> held = new ArrayList<>();
        try {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            for (int attempt = 0; held.size() < n; attempt++) {
                if (attempt > 20_000) throw new IOException("no free port found between " + LOW + " and " + HIGH);
                int port = random.nextInt(LOW, HIGH);
                if (GIVEN.contains(port)) continue;
                Reservation reservation = reserve(port);
                if (reservation == null) continue; // another process took it
                ServerSocket probe = new ServerSocket();
                try {
                    probe.bind(new InetSocketAddress(port));
                    held.add(probe);
                    GIVEN.add(port);
                    HELD.addLast(reservation);
                    while (HELD.size() > MOST_HELD) HELD.removeFirst().release();
                } catch (IOException taken) {
                    probe.close();
                    reservation.release();
                }
            }
            List<Integer> ports = new ArrayList<>();
            for (ServerSocket s : held) ports.add(s.getLocalPort());
            return ports;
        } finally {
            for (ServerSocket s : held) s.close();
        }
    }

    /**
     * {@code port}'s reservation, or null when another process holds it. Without a usable temporary directory there
     * is nothing to lock, and the port is only probed (as it was before reservations).
     */
    private static Reservation reserve(int port) {
        java.nio.channels.FileChannel channel = null;
        try {
            java.nio.file.Files.createDirectories(RESERVED);
            channel = java.nio.channels.FileChannel.open(RESERVED.resolve(Integer.toString(port)),
                    java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.WRITE);
            java.nio.channels.FileLock lock = channel.tryLock();
            if (lock == null) {
                channel.close();
                return null;
            }
            return new Reservation(lock);
        } catch (java.nio.channels.OverlappingFileLockException e) { // this process's own, from before it started over
            closeQuietly(channel);
            return null;
        } catch (IOException e) {
            closeQuietly(channel);
            return new Reservation(null);
        }
    }

    private static void closeQuietly(java.nio.channels.FileChannel channel) {
        if (channel == null) return;
        try {
            channel.close();
        } catch (IOException ignored) {
            // nothing held any more either way
        }
    }
}
