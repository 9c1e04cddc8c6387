package dev.gyro.cluster;

import dev.gyro.runtime.db.PostgresDialect;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * {@link BackendClusterContract} on three PostgreSQL servers with a round's globals in parallel under
 * {@link dev.gyro.runtime.db.OrderedCommits} (docs/decisions.md, decision 20): replicas equal, the store's audit
 * holds, one update per order, through a database server's crash, and more than one global ran at once.
 */
class PostgresOrderedCommitsClusterTest extends BackendClusterContract {

    @BeforeAll
    static void orderedCommitsOn() {
        System.setProperty(PostgresDialect.ORDERED_COMMITS, "true");
    }

    @AfterAll
    static void orderedCommitsOff() {
        System.clearProperty(PostgresDialect.ORDERED_COMMITS);
    }

    @Override
    Backend backend() {
        return Backend.POSTGRES;
    }
}
