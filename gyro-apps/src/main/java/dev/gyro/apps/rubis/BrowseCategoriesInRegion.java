package dev.gyro.apps.rubis;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.app.UserAbort;
import dev.gyro.apps.Rows;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** Browse Categories in a region: the region's name, then rows of (category id, name). Read-only. */
public final class BrowseCategoriesInRegion implements Transaction {

    static final String REGION = "SELECT R_NAME FROM REGIONS WHERE R_ID = ?";
    static final String CATEGORIES = "SELECT CA_ID, CA_NAME FROM CATEGORIES ORDER BY CA_ID";

    public List<Object> run(TxContext ctx, int regionId) throws SQLException {
        List<Object> out = new ArrayList<>();
        try (PreparedStatement ps = ctx.connection().prepareStatement(REGION)) {
            ps.setInt(1, regionId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) throw new UserAbort("no region " + regionId);
                out.add(rs.getString(1));
            }
        }
        try (PreparedStatement ps = ctx.connection().prepareStatement(CATEGORIES); ResultSet rs = ps.executeQuery()) {
            out.addAll(Rows.all(rs, 2));
        }
        return out;
    }
}
