package dev.gyro.runtime.db;

import java.sql.Statement;

/**
 * What generated keys the application asked a write for: nothing, the driver's choice
 * ({@link Statement#RETURN_GENERATED_KEYS}), or named or numbered columns.
 *
 * @param requested whether keys were asked for when the statement was prepared or executed
 * @param names     column names asked for, or null
 * @param indexes   column indexes asked for, or null
 */
public record KeyRequest(boolean requested, String[] names, int[] indexes) {

    public static final KeyRequest NONE = new KeyRequest(false, null, null);
    public static final KeyRequest DRIVER_CHOICE = new KeyRequest(true, null, null);

    /** From the second argument of {@code prepareStatement}/{@code executeUpdate}, if any. */
    static KeyRequest of(Object[] args) {
        if (args == null || args.length != 2) return NONE;
        if (args[1] instanceof Integer flag) return flag == Statement.RETURN_GENERATED_KEYS ? DRIVER_CHOICE : NONE;
        if (args[1] instanceof int[] idx) return new KeyRequest(true, null, idx.clone());
        if (args[1] instanceof String[] names) return new KeyRequest(true, names.clone(), null);
        return NONE;
    }
}
