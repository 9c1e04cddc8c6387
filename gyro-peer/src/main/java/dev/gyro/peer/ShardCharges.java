package dev.gyro.peer;

import dev.gyro.emulation.Capacity;
import org.apache.shardingsphere.infra.database.metadata.DataSourceMetaData;
import org.apache.shardingsphere.infra.executor.sql.hook.SQLExecutionHook;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Capacity emulation for the peer (docs/benchmark-method.md): the first time a transaction sends SQL to an
 * instance, it waits for one of that instance's slots and spends the service time in it, so a transaction that
 * touches k shards is charged on each of the k servers that do work for it.
 *
 * <p>The slot is released once the service time is spent, not held to the end of the transaction. A slot stands for
 * a small server's CPU; holding it while the transaction waits for other shards and for the two phases of the
 * commit would charge waiting as work, and because a transaction reaches its shards one at a time in an order that
 * depends on its data, slots held that way can deadlock the emulation itself (T1 holds A's last slot and waits for
 * B's, T2 holds B's and waits for A's), which real servers would not do. The statements then run on the real DBMS
 * outside the slot; with the paper's 5 ms service time against sub-millisecond statements the difference from
 * Gyro's accounting (which keeps the slot for the transaction's SQL too) is small, and it favours the peer.
 *
 * <p>Installed as a ShardingSphere {@link SQLExecutionHook} (its extension point for observing each statement sent
 * to a data source). Inside a transaction ShardingSphere executes serially on the calling thread, so the hook finds
 * the call's charges in a thread-local set by {@link PeerTarget} around each attempt; statements outside such a
 * call (metadata loading, checks) are not charged.
 */
public final class ShardCharges implements SQLExecutionHook {

    /** One attempt of one call: the instances' servers by data source name, and the ones already charged. */
    static final class Attempt {
        private final Map<String, Capacity> servers;
        private final Set<String> touched = new LinkedHashSet<>();

        Attempt(Map<String, Capacity> servers) {
            this.servers = servers;
        }

        void touch(String dataSource) {
            if (!touched.add(dataSource)) return;
            Capacity server = servers.get(dataSource);
            if (server == null) throw new IllegalStateException("SQL sent to unknown data source " + dataSource);
            try (dev.gyro.runtime.hook.TransactionGate.Slot ignored = server.enter()) {
                // the service time is spent inside enter(); the slot is given back at once (see the class comment)
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for a slot on " + dataSource, e);
            }
        }

        /** The data sources this attempt sent SQL to, in the order it first did. */
        List<String> touched() {
            return List.copyOf(touched);
        }
    }

    private static final ThreadLocal<Attempt> CURRENT = new ThreadLocal<>();

    static void begin(Attempt attempt) {
        CURRENT.set(attempt);
    }

    static void end() {
        CURRENT.remove();
    }

    @Override
    public void start(String dataSourceName, String sql, List<Object> params, DataSourceMetaData metaData,
                      boolean isTrunkThread) {
        Attempt a = CURRENT.get();
        if (a != null) a.touch(dataSourceName);
    }

    @Override
    public void finishSuccess() {}

    @Override
    public void finishFailure(Exception cause) {}
}
