package dev.gyro.cluster;


/** {@link BackendClusterContract} on three MariaDB servers. */
class MariaDbClusterTest extends BackendClusterContract {
    @Override
    Backend backend() {
        return Backend.MARIADB;
    }
}
