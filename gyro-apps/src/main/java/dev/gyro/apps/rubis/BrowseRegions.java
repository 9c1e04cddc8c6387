package dev.gyro.apps.rubis;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.apps.Rows;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/** Browse Regions: every region. Read-only. Rows of (id, name). */
public final class BrowseRegions implements Transaction {

    static final String REGIONS = "SELECT R_ID, R_NAME FROM REGIONS ORDER BY R_ID";

    public List<Object> run(TxContext ctx) throws SQLException {
        try (PreparedStatement ps = ctx.connection().prepareStatement(REGIONS); ResultSet rs = ps.executeQuery()) {
            return Rows.all(rs, 2);
        }
    }
}
