package dev.gyro.apps.rubis;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.apps.Rows;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/** Browse Categories: every category. Read-only. Rows of (id, name). */
public final class BrowseCategories implements Transaction {

    static final String CATEGORIES = "SELECT CA_ID, CA_NAME FROM CATEGORIES ORDER BY CA_ID";

    public List<Object> run(TxContext ctx) throws SQLException {
        try (PreparedStatement ps = ctx.connection().prepareStatement(CATEGORIES); ResultSet rs = ps.executeQuery()) {
            return Rows.all(rs, 2);
        }
    }
}
