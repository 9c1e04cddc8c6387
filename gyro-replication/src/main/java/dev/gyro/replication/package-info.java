/**
 * A ring position as a replicated group (the paper's Section III: each Gyro instance made fault tolerant by state
 * machine replication, each replica with its own DBMS replica; docs/decisions/12-replicated-groups.md and
 * docs/decisions/22-group-log.md). Apache Ratis provides the group's log, election and membership; this package decides
 * what the log carries and how a replica's database follows it, and runs the ring on groups (decision 24):
 * {@link dev.gyro.replication.InstanceReplica} runs its position's instance while it leads, on a view of its database
 * whose writes commit through the group ({@link dev.gyro.replication.GroupReplica} is the runtime's
 * {@code Replication}).
 *
 * <h2>Who does what, on which thread</h2>
 * <ul>
 *   <li>{@link dev.gyro.replication.ReplicatedGroup}: the R replicas of one position in one JVM; finds the leader,
 *       submits a request to it, stops and restarts replicas. Thread-safe.</li>
 *   <li>{@link dev.gyro.replication.InstanceReplica}: a replica and, while it leads, its position's instance; its
 *       watcher thread starts and stops the instance on the group's events.
 *       {@link dev.gyro.replication.ReplicatedRing}: N positions of R replicas in one JVM (demo, tests, benchmarks).</li>
 *   <li>{@link dev.gyro.replication.GroupReplica}: one replica. {@code submit} runs on the caller's thread, one request
 *       at a time per replica (its writer lock), and only as the established leader with its database caught up with
 *       its log. The request's DBMS transaction stays open until the entry is applied here.</li>
 *   <li>{@code ReplicaStateMachine}: Ratis' apply thread, one entry at a time in log order. It commits the leader's
 *       own open transaction with the entry's index, or applies the row images of any other entry with the
 *       runtime's {@code UpdateApplier} under the writer lock; either way the index is stored in the same DBMS
 *       transaction ({@code ReplicaProgress}, table {@code gyro_replica}). A failure stops the replica.</li>
 *   <li>{@code GroupEntry}: one request's row images (a token's updates as they are, then the runtime's capture of the
 *       application's writes and of the metadata's), its id and
 *       the basis it was computed on.</li>
 * </ul>
 *
 * <h2>What a caller is told</h2>
 * A result: a majority holds the entry and the leader's database has committed it. An {@link java.sql.SQLException}
 * from the request itself: rolled back, nothing appended. A {@link dev.gyro.replication.GroupUnavailableException}:
 * not in the answering replica's database; its {@code outcome} says whether it changed nothing anywhere
 * (NOT_APPLIED) or may still commit once a majority is back (UNKNOWN).
 */
package dev.gyro.replication;
