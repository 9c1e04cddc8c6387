package dev.gyro.apps.tpcw;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.apps.Rows;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/** The greeting of the Home page: a customer's first and last name. Read-only. */
public final class GetName implements Transaction {

    static final String SELECT_NAME = "SELECT C_FNAME, C_LNAME FROM CUSTOMER WHERE C_ID = ?";

    public List<Object> run(TxContext ctx, long customerId) throws SQLException {
        try (PreparedStatement ps = ctx.connection().prepareStatement(SELECT_NAME)) {
            ps.setLong(1, customerId);
            try (ResultSet rs = ps.executeQuery()) {
                return Rows.all(rs, 2);
            }
        }
    }
}
