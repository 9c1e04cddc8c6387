package dev.gyro.apps.tpcw;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Shopping Cart, first visit: a new empty cart with the next free id, which the client then routes its cart
 * requests by. Global: the next id is read from every cart ever created (MAX(SC_ID)).
 */
public final class CreateEmptyCart implements Transaction {

    static final String NEXT_ID = "SELECT COALESCE(MAX(SC_ID), 0) + 1 FROM SHOPPING_CART";
    static final String INSERT_CART = "INSERT INTO SHOPPING_CART (SC_ID, SC_TIME) VALUES (?, ?)";

    public long run(TxContext ctx) throws SQLException {
        Connection c = ctx.connection();
        long id;
        try (PreparedStatement ps = c.prepareStatement(NEXT_ID); ResultSet rs = ps.executeQuery()) {
            rs.next();
            id = rs.getLong(1);
        }
        try (PreparedStatement ps = c.prepareStatement(INSERT_CART)) {
            ps.setLong(1, id);
            ps.setLong(2, ctx.now());
            ps.executeUpdate();
        }
        return id;
    }
}
