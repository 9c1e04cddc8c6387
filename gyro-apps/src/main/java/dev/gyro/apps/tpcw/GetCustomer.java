package dev.gyro.apps.tpcw;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.app.UserAbort;
import dev.gyro.apps.Rows;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * Buy Request of a returning customer: the customer and the billing address, by user name. Read-only. It reads no
 * column that a local request writes (C_LOGIN and C_EXPIRATION belong to the customer's own partition), so it may
 * run at any instance.
 */
public final class GetCustomer implements Transaction {

    static final String SELECT_CUSTOMER = "SELECT C.C_ID, C.C_FNAME, C.C_LNAME, C.C_PHONE, C.C_EMAIL, C.C_SINCE, "
            + "C.C_DISCOUNT_BP, C.C_BIRTHDATE, A.ADDR_STREET1, A.ADDR_STREET2, A.ADDR_CITY, A.ADDR_STATE, A.ADDR_ZIP, "
            + "CO.CO_NAME FROM CUSTOMER C, ADDRESS A, COUNTRY CO WHERE C.C_UNAME = ? AND A.ADDR_ID = C.C_ADDR_ID "
            + "AND CO.CO_ID = A.ADDR_CO_ID";

    public List<Object> run(TxContext ctx, String uname) throws SQLException {
        try (PreparedStatement ps = ctx.connection().prepareStatement(SELECT_CUSTOMER)) {
            ps.setString(1, uname);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) throw new UserAbort("no customer " + uname);
                return Rows.current(rs, 14);
            }
        }
    }
}
