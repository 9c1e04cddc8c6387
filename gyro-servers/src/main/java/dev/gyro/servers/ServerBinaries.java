package dev.gyro.servers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Where the programs of a database server are. Looks on {@code PATH} first, then where Debian installs them
 * ({@code /usr/lib/postgresql/VERSION/bin}, newest version first; {@code /usr/sbin} for {@code mariadbd}), so
 * that a non-root user without {@code /usr/sbin} on its {@code PATH} finds them too.
 */
public final class ServerBinaries {

    private ServerBinaries() {}

    /** PostgreSQL's {@code initdb}, {@code pg_ctl} and {@code postgres}, from one directory. */
    public record Postgres(Path initdb, Path pgCtl, Path postgres) {}

    /** MariaDB's server and its data directory installer. */
    public record MariaDb(Path mariadbd, Path installDb) {}

    /**
     * @throws MissingServerException naming the Debian package {@code postgresql} when they are not installed
     */
    public static Postgres postgres() {
        List<Path> dirs = new ArrayList<>(pathDirs());
        dirs.addAll(debianPostgresDirs(Path.of("/usr/lib/postgresql")));
        return postgres(dirs);
    }

    static Postgres postgres(List<Path> dirs) {
        for (Path d : dirs) {
            Path initdb = d.resolve("initdb"), pgCtl = d.resolve("pg_ctl"), postgres = d.resolve("postgres");
            if (Files.isExecutable(initdb) && Files.isExecutable(pgCtl) && Files.isExecutable(postgres))
                return new Postgres(initdb, pgCtl, postgres);
        }
        throw new MissingServerException("the PostgreSQL server programs (initdb, pg_ctl, postgres) are not installed:"
                + " looked on PATH and in /usr/lib/postgresql/*/bin. Install the Debian package postgresql"
                + " (apt-get install postgresql)", "postgresql");
    }

    /**
     * @throws MissingServerException naming the Debian package {@code mariadb-server} when they are not installed
     */
    public static MariaDb mariadb() {
        List<Path> dirs = new ArrayList<>(pathDirs());
        for (String d : List.of("/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin", "/usr/local/mysql/bin"))
            dirs.add(Path.of(d));
        return mariadb(dirs);
    }

    static MariaDb mariadb(List<Path> dirs) {
        Path server = find(dirs, "mariadbd", "mysqld");
        Path install = find(dirs, "mariadb-install-db", "mysql_install_db");
        if (server != null && install != null) return new MariaDb(server, install);
        throw new MissingServerException("the MariaDB server programs (mariadbd, mariadb-install-db) are not installed:"
                + " looked on PATH and in /usr/sbin, /usr/bin. Install the Debian package mariadb-server"
                + " (apt-get install mariadb-server)", "mariadb-server");
    }

    private static Path find(List<Path> dirs, String... names) {
        for (String name : names)
            for (Path d : dirs) {
                Path p = d.resolve(name);
                if (Files.isExecutable(p) && !Files.isDirectory(p)) return p;
            }
        return null;
    }

    private static List<Path> pathDirs() {
        List<Path> out = new ArrayList<>();
        String path = System.getenv("PATH");
        if (path == null) return out;
        for (String p : path.split(java.io.File.pathSeparator)) if (!p.isBlank()) out.add(Path.of(p));
        return out;
    }

    /** {@code root/VERSION/bin}, newest version first. */
    static List<Path> debianPostgresDirs(Path root) {
        if (!Files.isDirectory(root)) return List.of();
        try (Stream<Path> versions = Files.list(root)) {
            return versions.filter(v -> v.getFileName().toString().matches("\\d+(\\.\\d+)?"))
                    .sorted(Comparator.comparingDouble((Path v) -> Double.parseDouble(v.getFileName().toString()))
                            .reversed())
                    .map(v -> v.resolve("bin"))
                    .toList();
        } catch (IOException e) {
            return List.of();
        }
    }
}
