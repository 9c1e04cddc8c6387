package dev.gyro.cluster;
import org.junit.jupiter.api.Tag;


/** {@link BackendClusterContract} on three MariaDB servers. */
@Tag("servers")
class MariaDbClusterTest extends BackendClusterContract {
    @Override
    Backend backend() {
        return Backend.MARIADB;
    }
}
