package dev.gyro.check;

import dev.gyro.runtime.db.CapturingConnection;
import dev.gyro.runtime.hook.RequestObserver;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Collects the accesses of every committed request of one or more instances, as their {@link RequestObserver}
 * ({@code GyroInstance.observeRequests}): each attempt is recorded by a {@link RequestRecorder}, and kept once it
 * commits. Every read then runs twice: for tests and diagnosis, not production. Thread-safe.
 */
public final class AccessLog implements RequestObserver {
    private final ConcurrentLinkedQueue<Access> accesses = new ConcurrentLinkedQueue<>();

    public void add(Access access) {
        accesses.add(access);
    }

    public List<Access> all() {
        return List.copyOf(accesses);
    }

    public int size() {
        return accesses.size();
    }

    @Override
    public Attempt begin(Observed request, Connection connection, CapturingConnection capture) {
        long start = System.nanoTime();
        var db = request.database();
        RequestRecorder rec = capture != null ? new RequestRecorder(capture, db.tables())
                : new RequestRecorder(connection, db.dialect(), db.tables());
        return new Attempt() {
            private Set<RowRef> reads, writes;

            @Override
            public Connection connection() {
                return rec.connection();
            }

            @Override
            public void ran() throws SQLException {
                reads = rec.reads();
                writes = rec.writes();
            }

            @Override
            public void committed() {
                add(new Access(request.instance(), request.transaction(), request.parameters(), request.partition(),
                        request.global(), start, System.nanoTime(), reads, writes));
            }
        };
    }
}
