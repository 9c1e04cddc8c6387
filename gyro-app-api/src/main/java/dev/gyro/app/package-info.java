/**
 * The application model: what an application gives Gyro to be scaled out, and the only Gyro API it compiles against
 * ({@code dev.gyro:gyro-app-api}).
 *
 * <ul>
 *   <li>{@link dev.gyro.app.Application}: the application's name, transactions, schema, classification, initial data,
 *       and optionally its workload ({@link dev.gyro.app.Workload}), consistency conditions ({@link dev.gyro.app.Audit})
 *       and sharding for the two-phase-commit baseline ({@link dev.gyro.app.Sharding}). Gyro finds applications with
 *       {@link java.util.ServiceLoader} ({@link dev.gyro.app.Applications}): list the class in
 *       {@code META-INF/services/dev.gyro.app.Application} of the application's jar.</li>
 *   <li>{@link dev.gyro.app.Transaction}: one class per transaction, SQL as {@code static final String} constants, one
 *       {@code run(TxContext, ...)}; the contract is on that interface.</li>
 *   <li>{@link dev.gyro.app.TxContext}: the request's connection, clock ({@code now()}) and random source
 *       ({@code random()}); {@link dev.gyro.app.UserAbort} rolls the request back with a message.</li>
 *   <li>{@link dev.gyro.app.Classification}: per transaction local, global or local-or-global ({@link dev.gyro.app.Kind},
 *       the paper's Definition 1) and its partitioning parameters, as {@code gyro analyze} writes it.</li>
 *   <li>{@link dev.gyro.app.DirectExecutor}: runs the transactions on one plain connection, for unit tests.</li>
 * </ul>
 *
 * The tutorial is {@code docs/your-application.md} in Gyro's repository.
 */
package dev.gyro.app;
