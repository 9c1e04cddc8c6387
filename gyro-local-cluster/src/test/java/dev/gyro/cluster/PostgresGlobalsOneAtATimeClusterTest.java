package dev.gyro.cluster;

import dev.gyro.runtime.db.PostgresDialect;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/**
 * {@link BackendClusterContract} on three PostgreSQL servers with {@link dev.gyro.runtime.db.OrderedCommits} turned
 * off ({@code -Dgyro.orderedCommits=false}, docs/decisions.md, decision 20): globals run one at a time, and the
 * contract holds the same (replicas equal, the store's audit, one update per order, a database server's crash).
 * {@link PostgresClusterTest} runs it with the default, a round's globals in parallel.
 */
@Tag("servers")
class PostgresGlobalsOneAtATimeClusterTest extends BackendClusterContract {

    @BeforeAll
    static void orderedCommitsOff() {
        System.setProperty(PostgresDialect.ORDERED_COMMITS, "false");
    }

    @AfterAll
    static void backToTheDefault() {
        System.clearProperty(PostgresDialect.ORDERED_COMMITS);
    }

    @Override
    Backend backend() {
        return Backend.POSTGRES;
    }
}
