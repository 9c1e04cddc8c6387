package dev.gyro.cluster;

import dev.gyro.servers.DatabaseServer;
import dev.gyro.servers.ThrowawayServers;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

import java.nio.file.Path;

/**
 * Real PostgreSQL and MariaDB servers for the runtime's tests ({@link ThrowawayServers}: started by the tests on
 * free loopback ports, never the servers on 5432/3306, shared by the JVM, gone when it exits).
 *
 * <p>When a server's programs are not installed the test is skipped with the reason (which names the Debian
 * package); with {@code CI=true} it fails instead: CI must run every backend.
 */
public final class TestServers {

    private TestServers() {}

    /** Skips the calling test (fails it under CI=true) when servers of {@code backend} cannot be started here. */
    public static void require(Backend backend) {
        String reason = backend.unavailableReason();
        if (reason == null) return;
        if ("true".equalsIgnoreCase(System.getenv("CI")))
            Assertions.fail("CI=true and the " + backend + " backend cannot be tested: " + reason);
        Assumptions.abort("skipped: " + reason + " (with CI=true this fails)");
    }

    /** Shared server {@code index} of {@code backend}, started on first use. */
    public static DatabaseServer shared(Backend backend, int index) {
        require(backend);
        return ThrowawayServers.shared(backend.serverKind(), index);
    }

    /** A new database with a unique name on shared server {@code index}; returns its JDBC URL. */
    public static String freshDatabase(Backend backend, int index) {
        require(backend);
        return ThrowawayServers.freshDatabase(backend.serverKind(), index);
    }

    /** A server of {@code backend} for this test alone, started; the caller closes it. */
    public static DatabaseServer privateServer(Backend backend) {
        require(backend);
        return ThrowawayServers.privateServer(backend.serverKind());
    }

    /** A directory every server user can reach, removed when the JVM exits. */
    public static Path base() {
        return ThrowawayServers.base();
    }
}
