/**
 * The database layer of a Gyro instance: one DBMS instance reached only through pooled JDBC (DESIGN.md
 * decision 2), the capture of a global request's writes as row images (decision 4), their idempotent
 * application elsewhere, and the metadata that makes both exactly-once across crashes (decision 5).
 *
 * <h2>Who does what, in which transaction</h2>
 * <ul>
 *   <li>{@link dev.gyro.runtime.db.Database}: pools and transactions. {@code inTransaction(readOnly, work)} begins,
 *       runs, commits, rolls back on failure and retries lost races (busy / serialization failures,
 *       decision 6).</li>
 *   <li>{@link dev.gyro.runtime.db.CapturingConnection}: wraps the connection a global request runs on; its
 *       {@code changes()} are the state update.</li>
 *   <li>{@link dev.gyro.runtime.db.UpdateApplier}: applies row changes on the caller's connection and
 *       transaction.</li>
 *   <li>{@link dev.gyro.runtime.db.MetadataStore}: the {@code gyro_} tables, written in the same transaction as
 *       the data they describe.</li>
 *   <li>{@link dev.gyro.runtime.db.Dialect}: every backend difference; {@link dev.gyro.runtime.db.SqliteDialect}
 *       today.</li>
 * </ul>
 * The three atomic units of {@link dev.gyro.protocol.Action} map onto them as:
 * <pre>
 * ApplyUpdates : inTransaction(false, c -&gt; { UpdateApplier.apply(c, u.changes()) for each u;
 *                                          MetadataStore.recordReceived(c, token, lastGsn); })
 * ExecuteGlobal: inTransaction(false, c -&gt; { cc = CapturingConnection.wrap(c, dialect); run(cc.connection());
 *                                          if (!cc.changes().isEmpty())
 *                                              MetadataStore.recordGlobal(c, new StateUpdate(gsn, self, cc.changes())); })
 * PassToken    : inTransaction(false, c -&gt; MetadataStore.recordPassed(c, token)), then send
 * </pre>
 *
 * <h2>Limits of the capture</h2>
 * <ul>
 *   <li>Rows written by triggers and by foreign-key actions (ON DELETE CASCADE, SET NULL) are not captured;
 *       replicas fire their own triggers and actions when the images are applied.</li>
 *   <li>Refused (the request rolls back with a message naming the statement): tables without a primary key,
 *       UPDATEs or upsert actions that set a key column (or SQLite's rowid), REPLACE on a table with another
 *       UNIQUE constraint, statements with their own RETURNING clause, several statements in one string, DDL and
 *       other non-DML statements, writes to temp/attached databases or to {@code gyro_} tables, and SQL
 *       JSqlParser 5.4 cannot read (for example an UPDATE mixing {@code a = 1} and {@code (b, c) = (...)}).</li>
 *   <li>A write that fails spoils the capture: the request must roll back even if the application catches the
 *       error, because a failing statement may have written part of its rows (SQLite OR FAIL) or ended the
 *       transaction (SQLite rolls back on some errors).</li>
 *   <li>Only SQLite is implemented: its RETURNING gives the images. A backend without RETURNING for some
 *       statement kind (MariaDB's UPDATE) needs the keyed re-read of decision 4, which is not written yet.</li>
 * </ul>
 */
package dev.gyro.runtime.db;
