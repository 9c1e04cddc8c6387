package dev.gyro.bench;

import dev.gyro.cluster.Backend;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/** Tests that need a database server: outside CI a missing server skips with the reason; with CI=true it fails. */
public final class RequireBackend {

    private RequireBackend() {}

    public static void require(Backend backend) {
        String reason = backend.unavailableReason();
        if (reason == null) return;
        if ("true".equalsIgnoreCase(System.getenv("CI")))
            Assertions.fail("CI=true and the " + backend + " backend cannot be tested: " + reason);
        Assumptions.abort("skipped: " + reason + " (with CI=true this fails)");
    }
}
