package dev.gyro.runtime.db;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Generated keys as the driver would report them for the application's statement. Read right after the write
 * when the statement asked for keys; otherwise on demand, which is exact while no other write has run since.
 */
final class GeneratedKeys {
    private final CapturingConnection owner;
    private ResultSet keys;
    private WriteKind kind;
    private WrittenRows written = WrittenRows.none();
    private long atWrite = -1;

    GeneratedKeys(CapturingConnection owner) {
        this.owner = owner;
    }

    void afterWrite(WriteKind kind, KeyRequest request) throws SQLException {
        close();
        this.kind = kind;
        this.atWrite = owner.writes;
        this.written = owner.lastWritten;
        if (request.requested()) keys = owner.dialect.generatedKeys(owner.real, kind, written, request);
    }

    ResultSet get() throws SQLException {
        if (keys != null) return keys;
        if (atWrite >= 0 && atWrite != owner.writes)
            throw new SQLException("generated keys of this statement are no longer known: another write ran"
                    + " since; prepare the statement with Statement.RETURN_GENERATED_KEYS");
        keys = owner.dialect.generatedKeys(owner.real, kind, written, KeyRequest.NONE);
        return keys;
    }

    void close() throws SQLException {
        if (keys != null) {
            ResultSet rs = keys;
            keys = null;
            Statement st = rs.getStatement();
            rs.close();
            if (st != null) st.close();
        }
    }
}
