/**
 * Throwaway database servers for Gyro's server backends (each instance is a separate, unmodified DBMS server, reached
 * only through JDBC: docs/decisions/02-jdbc-only.md): PostgreSQL and MariaDB servers initialised into a directory of
 * their own and started on a free loopback port, for {@code gyro cluster start}, the demo and the tests. Nothing here
 * touches servers that may already run on the standard ports (5432, 3306).
 *
 * <ul>
 *   <li>{@link dev.gyro.servers.ServerKind}: {@code postgres}, {@code mariadb}.</li>
 *   <li>{@link dev.gyro.servers.DatabaseServer}: one server process: {@code start}, {@code stop},
 *       {@code crash} (stop without a clean shutdown, to test recovery), databases, JDBC URLs.</li>
 *   <li>{@link dev.gyro.servers.ThrowawayServers}: servers shared by everything in one JVM (tests), each caller
 *       in databases of its own, all stopped and removed when the JVM exits.</li>
 *   <li>{@link dev.gyro.servers.ServerBinaries}: where the server programs are; a missing program is a
 *       {@link dev.gyro.servers.MissingServerException} naming the Debian package to install.</li>
 * </ul>
 *
 * <p>A module of its own, depending on nothing of Gyro, so that the runtime, the command line and the
 * applications' tests can all start servers.
 *
 * <p>Run as root, the servers run as their packages' system users ({@code postgres}, {@code mysql}) through
 * {@code runuser}: PostgreSQL refuses to run as root. Their directories are handed to those users, and every
 * directory above must be searchable by them (a temporary directory under {@code /tmp} is; {@code /root} is not).
 */
package dev.gyro.servers;
