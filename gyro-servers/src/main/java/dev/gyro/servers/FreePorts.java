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
 * ports, before anything binds them: the second call must not return a port of the first).
 */
public final class FreePorts {

    static final int LOW = 20_000, HIGH = 32_000;

    /** Ports this process handed out, not to be handed out again while others are left. */
    private static final java.util.Set<Integer> GIVEN = new java.util.HashSet<>();

    private FreePorts() {}

    public static int take() throws IOException {
        return take(1).get(0);
    }

    /** {@code n} distinct ports that nothing listened on (on any address) a moment ago. */
    public static synchronized List<Integer> take(int n) throws IOException {
        if (GIVEN.size() > (HIGH - LOW) / 2) GIVEN.clear(); // long runs: start over rather than run dry
        List<ServerSocket> held = new ArrayList<>();
        try {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            for (int attempt = 0; held.size() < n; attempt++) {
                if (attempt > 20_000) throw new IOException("no free port found between " + LOW + " and " + HIGH);
                int port = random.nextInt(LOW, HIGH);
                if (GIVEN.contains(port)) continue;
                ServerSocket probe = new ServerSocket();
                try {
                    probe.bind(new InetSocketAddress(port));
                    held.add(probe);
                } catch (IOException taken) {
                    probe.close();
                }
            }
            List<Integer> ports = new ArrayList<>();
            for (ServerSocket s : held) ports.add(s.getLocalPort());
            GIVEN.addAll(ports);
            return ports;
        } finally {
            for (ServerSocket s : held) s.close();
        }
    }
}
