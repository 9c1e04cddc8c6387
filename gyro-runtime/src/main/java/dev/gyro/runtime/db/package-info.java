/**
 * The database layer of a Gyro instance: one DBMS instance reached only through pooled JDBC, the capture of a
 * global request's writes as row images, their idempotent application elsewhere, and the metadata that makes both
 * exactly-once across crashes (docs/decisions/02-jdbc-only.md, docs/decisions/04-row-images.md and
 * docs/decisions/05-exactly-once.md).
 *
 * <h2>Who does what, in which transaction</h2>
 * <ul>
 *   <li>{@link dev.gyro.runtime.db.Database}: pools and transactions. {@code inTransaction(readOnly, work)} begins,
 *       runs, commits, rolls back on failure and retries lost races (busy / serialization failures,
 *       docs/decisions/06-commit-ordering.md).</li>
 *   <li>{@link dev.gyro.runtime.db.CapturingConnection}: wraps the connection a global request runs on; its
 *       {@code changes()} are the state update.</li>
 *   <li>{@link dev.gyro.runtime.db.UpdateApplier}: applies row changes on the caller's connection and
 *       transaction.</li>
 *   <li>{@link dev.gyro.runtime.db.MetadataStore}: the {@code gyro_} tables, written in the same transaction as
 *       the data they describe.</li>
 *   <li>{@link dev.gyro.runtime.db.Dialect}: every backend difference: {@link dev.gyro.runtime.db.SqliteDialect},
 *       {@link dev.gyro.runtime.db.PostgresDialect}, {@link dev.gyro.runtime.db.MariaDbDialect}. Each says
 *       how to reach the DBMS serializably, how to capture (RETURNING, or {@link dev.gyro.runtime.db.KeyedReRead})
 *       and apply (its upsert), which failures are lost races to retry, and whether it has commit ordering.</li>
 * </ul>
 *
 * <h2>The three backends side by side</h2>
 * <table>
 *   <caption>what differs, and why</caption>
 *   <tr><th></th><th>SQLite</th><th>PostgreSQL</th><th>MariaDB</th></tr>
 *   <tr><td>serializable by</td><td>one writer (BEGIN IMMEDIATE)</td><td>SSI</td><td>InnoDB strict 2PL</td></tr>
 *   <tr><td>commit ordering, globals</td><td>trivially; one at a time</td><td>no; one at a time</td>
 *       <td>yes; in parallel (Appendix B)</td></tr>
 *   <tr><td>retried</td><td>BUSY, LOCKED</td><td>40001, 40P01, 55P03</td><td>1213 deadlock, 1205 lock wait,
 *       1020</td></tr>
 *   <tr><td>capture</td><td>RETURNING *</td><td>RETURNING *</td><td>RETURNING * (INSERT, REPLACE, DELETE); keyed
 *       re-read (UPDATE)</td></tr>
 *   <tr><td>apply</td><td>ON CONFLICT (key) DO UPDATE</td><td>ON CONFLICT (key) DO UPDATE; sequences moved
 *       past applied keys</td><td>ON DUPLICATE KEY UPDATE, foreign-key checks off per statement</td></tr>
 * </table>
 * The atomic units of {@link dev.gyro.protocol.Action} map onto them as:
 * <pre>
 * ApplyUpdates : inTransaction(false, c -&gt; { UpdateApplier.applyAll(c, updates);
 *                                          MetadataStore.recordReceived(c, token, lastGsn); })
 * ExecuteGlobal: inTransaction(false, c -&gt; { cc = CapturingConnection.wrap(c, dialect); run(cc.connection());
 *                                          if (!cc.changes().isEmpty())
 *                                              MetadataStore.recordGlobal(c, new StateUpdate(gsn, self, cc.changes())); })
 * PassToken    : inTransaction(false, c -&gt; MetadataStore.recordPassed(c, token)), then send
 * ExecuteGlobals (MariaDB): each request on its own thread and transaction; after its writes, under one lock:
 *                take the next gsn, MetadataStore.recordGlobal, commit, report -- gsn order is commit order
 * </pre>
 *
 * <h2>Limits of the capture</h2>
 * <ul>
 *   <li>Rows written by triggers and by foreign-key actions (ON DELETE CASCADE, SET NULL) are not captured;
 *       replicas fire their own triggers and actions when the images are applied.</li>
 *   <li>A table without a primary key is a multiset: inserted rows travel whole ({@code APPEND}), deleted ones as
 *       they were ({@code REMOVE}: one equal row deleted elsewhere), updated ones as both (read before the UPDATE,
 *       returned by it).</li>
 *   <li>Refused (the request rolls back with a message naming the statement): REPLACE and upserts on tables without
 *       a primary key, and their UPDATEs on MariaDB (no RETURNING),
 *       UPDATEs or upsert actions that set a key column (or SQLite's rowid), REPLACE on a table with another
 *       UNIQUE constraint, statements with their own RETURNING clause, several statements in one string, DDL and
 *       other non-DML statements, writes to temp/attached databases or to {@code gyro_} tables, and SQL
 *       JSqlParser 5.4 cannot read (for example an UPDATE mixing {@code a = 1} and {@code (b, c) = (...)}).</li>
 *   <li>A write that fails spoils the capture: the request must roll back even if the application catches the
 *       error, because a failing statement may have written part of its rows (SQLite OR FAIL) or ended the
 *       transaction (SQLite rolls back on some errors).</li>
 *   <li>MariaDB's UPDATE is captured by a keyed re-read: a locking SELECT with the statement's own WHERE (and
 *       ORDER BY / LIMIT) reads the keys first, the rows are read by key afterwards. Its affected-row count is the
 *       driver's; for INSERT ... ON DUPLICATE KEY UPDATE the count returned is the number of rows written (MySQL's
 *       protocol would say 2 for an updated row).</li>
 *   <li>Values travel as the five storage classes of {@link dev.gyro.protocol.Value}; PostgreSQL and MariaDB
 *       dates, times (and PostgreSQL UUIDs, JSON) travel as text the server reads back as the same value;
 *       NUMERIC values that are not integral travel as doubles.</li>
 *   <li>MySQL itself is refused: it has no RETURNING at all.</li>
 * </ul>
 */
package dev.gyro.runtime.db;
