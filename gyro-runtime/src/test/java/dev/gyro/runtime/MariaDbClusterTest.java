package dev.gyro.runtime;


/** {@link BackendClusterContract} on three MariaDB servers. */
class MariaDbClusterTest extends BackendClusterContract {
    @Override
    Backend backend() {
        return Backend.MARIADB;
    }
}
