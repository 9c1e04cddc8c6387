package dev.gyro.cluster;


/** {@link BackendClusterContract} on three PostgreSQL servers. */
class PostgresClusterTest extends BackendClusterContract {
    @Override
    Backend backend() {
        return Backend.POSTGRES;
    }
}
