package dev.gyro.app;

/**
 * A transaction of the application: a procedure with typed input parameters (paper Section IV).
 *
 * <p>The contract, which lets {@code gyro analyze} read a transaction without running it:
 * <ul>
 *   <li>its SQL is declared as {@code static final String} constants of the class;</li>
 *   <li>it has exactly one public method named {@code run} whose first parameter is a {@link TxContext} and whose
 *       other parameters are the transaction's input parameters, of types {@code long}, {@code int},
 *       {@code double}, {@code boolean}, {@code String} or {@code byte[]} (or their boxes);</li>
 *   <li>{@code run} talks to the database only through {@code ctx.connection()} with plain JDBC, and does not
 *       commit, roll back or change the connection's settings: the runtime owns the transaction;</li>
 *   <li>time and randomness come only from {@link TxContext#now()} and {@link TxContext#random()};</li>
 *   <li>it returns null, a value ({@code Long}, {@code Integer}, {@code Double}, {@code String}, {@code byte[]},
 *       {@code Boolean}) or a {@code List} of values; throwing rolls the whole request back.</li>
 * </ul>
 * The transaction's name is the class's simple name with its first letter in lower case
 * ({@code AddItem} is {@code addItem}). Instances must be stateless: one is shared by all requests.
 *
 * <p>What Gyro says when a transaction breaks the contract. When the application is loaded, in one line naming the
 * class and the reason: no or several {@code run} methods, a first parameter that is not a {@code TxContext}, a
 * parameter of another type, a class compiled without {@code -parameters} (the names are needed for partitioning),
 * and, for a transaction classified global or local-or-global, an SQL constant that write capture cannot ship to the
 * other instances (DDL, transaction control, a statement with its own {@code RETURNING}, a multi-table write). When a
 * request runs: {@code commit()}, {@code rollback()} or a settings change on the connection of a global request, a
 * REPLACE or upsert in a table without a primary key, or a write to a primary-key column fail the request,
 * which rolls back and ships nothing; the client receives {@code FAILED} and the reason.
 */
public interface Transaction {

    static String nameOf(Class<? extends Transaction> type) {
        String simple = type.getSimpleName();
        return Character.toLowerCase(simple.charAt(0)) + simple.substring(1);
    }
}
