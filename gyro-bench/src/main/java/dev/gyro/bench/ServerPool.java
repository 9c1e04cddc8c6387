package dev.gyro.bench;

import dev.gyro.cluster.Backend;
import dev.gyro.servers.DatabaseServer;
import dev.gyro.servers.ServerKind;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * Database servers kept running across the points of one scenario run, each point getting fresh databases on them.
 *
 * <p>Why: a point that starts its own servers pays initdb (or mariadb-install-db) and a server start-up for every
 * instance, about 10 s at 2 PostgreSQL instances and more at 8, often longer than the load it measures. Server
 * {@code i} of a kind serves instance {@code i} of every point; each point's databases are created empty, loaded by the
 * system under test as before, and dropped after it ({@link #dropDatabases}), so points share no data, only the
 * server processes (and their warm caches, which a long-running production server has too).
 *
 * <p>Not thread-safe: the scenario runner deploys one system at a time.
 */
public final class ServerPool implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ServerPool.class);

    private final Path dir;
    private final Map<ServerKind, List<DatabaseServer>> servers = new EnumMap<>(ServerKind.class);
    private final List<Created> created = new ArrayList<>();
    private int names;

    private record Created(DatabaseServer server, String name) {}

    /** Servers will live under {@code dir}, one directory each; none starts before it is needed. */
    public ServerPool(Path dir) {
        this.dir = dir;
    }

    /**
     * One new, empty database on each of servers 0 to {@code n - 1} of the backend, starting the servers not yet
     * running (side by side: start-up dominates).
     *
     * @return their JDBC URLs, in instance order
     * @throws IllegalArgumentException for SQLite, which has no server
     */
    public List<String> freshDatabases(Backend backend, int n) throws SQLException {
        ServerKind kind = backend.serverKind();
        if (kind == null) throw new IllegalArgumentException(backend + " has no database server to pool");
        List<DatabaseServer> list = servers.computeIfAbsent(kind, k -> new ArrayList<>());
        int have = list.size();
        if (have < n) {
            DatabaseServer[] started = new DatabaseServer[n - have];
            IntStream.range(have, n).parallel().forEach(i -> started[i - have] =
                    DatabaseServer.create(kind, dir.resolve(kind.label() + "-" + i)).start());
            list.addAll(List.of(started));
        }
        List<String> urls = new ArrayList<>();
        String name = "p" + (++names);
        for (int i = 0; i < n; i++) {
            DatabaseServer s = list.get(i);
            if (!s.isRunning()) s.start();
            s.createDatabase(name);
            created.add(new Created(s, name));
            urls.add(s.jdbcUrl(name));
        }
        return urls;
    }

    /** How many servers run now, of every kind. */
    public int running() {
        return (int) servers.values().stream().flatMap(List::stream).filter(DatabaseServer::isRunning).count();
    }

    /**
     * Drops every database handed out so far; called after each point, once its deployment is closed. A database that
     * cannot be dropped (a PostgreSQL database still holding a prepared transaction, say) stays, and is logged: it
     * costs disk, not correctness, since the next point uses new names.
     */
    public void dropDatabases() {
        for (Created c : created) {
            try {
                c.server().dropDatabase(c.name());
            } catch (SQLException e) {
                log.warn("could not drop database {} on {}: {}", c.name(), c.server(), e.getMessage());
            }
        }
        created.clear();
    }

    /** Stops every server (their directories are left to the caller, who owns {@code dir}). */
    @Override
    public void close() {
        dropDatabases();
        for (List<DatabaseServer> list : servers.values())
            for (DatabaseServer s : list) {
                try {
                    s.close();
                } catch (RuntimeException e) {
                    log.warn("could not stop {}: {}", s, e.getMessage());
                }
            }
        servers.clear();
    }
}
