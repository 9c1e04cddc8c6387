package dev.gyro.cluster;
import org.junit.jupiter.api.Tag;


/** {@link BackendClusterContract} on three PostgreSQL servers. */
@Tag("servers")
class PostgresClusterTest extends BackendClusterContract {
    @Override
    Backend backend() {
        return Backend.POSTGRES;
    }
}
