package dev.gyro.cli;

import dev.gyro.app.Application;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.sql.Connection;
import java.sql.DriverManager;
import java.util.concurrent.Callable;

@Command(name = "load", mixinStandardHelpOptions = true,
        description = "Create an application's tables in one database and load its initial data (seeded: the same on "
                + "every instance), with a progress bar. Run it once per instance's database, or let 'gyro instance "
                + "--load' do it. The last line starts with 'load: OK' or 'load: FAILED'.")
final class LoadCommand implements Callable<Integer> {

    @Option(names = "--app", required = true, description = "the application: ${COMPLETION-CANDIDATES}, or one"
            + " of your own with --app-jar", completionCandidates = AppNames.class)
    String app;

    @picocli.CommandLine.Mixin
    Apps apps = new Apps();

    @Option(names = "--db", required = true, description = "a SQLite file, or a JDBC URL (jdbc:postgresql:..., jdbc:mariadb:...)")
    String db;

    @Option(names = "--scale", defaultValue = "1", description = "the application's scale unit; TPC-C: warehouses (default: ${DEFAULT-VALUE})")
    int scale;

    @Option(names = "--seed", defaultValue = "42", description = "seed of the data (default: ${DEFAULT-VALUE})")
    long seed;

    static final class AppNames extends java.util.ArrayList<String> {
        AppNames() {
            super(Apps.builtInNames());
        }
    }

    @Override
    public Integer call() {
        if (scale < 1) {
            System.out.println("load: FAILED: --scale must be at least 1");
            return 2;
        }
        Application application;
        try {
            application = apps.byName(app);
        } catch (IllegalArgumentException e) {
            System.out.println("load: FAILED: " + e.getMessage());
            return 2;
        }
        String url = db.startsWith("jdbc:") ? db : "jdbc:sqlite:" + db;
        long start = System.nanoTime();
        try (Connection c = DriverManager.getConnection(url)) {
            c.setAutoCommit(false);
            application.createSchema(c);
            if (application.isLoaded(c)) {
                c.commit();
                System.out.println("load: OK (" + app + " was already loaded in " + db + "; nothing changed)");
                return 0;
            }
            System.out.println("loading " + app + " (" + application.describeScale(scale) + ", seed " + seed + ") into " + db);
            ProgressBar bar = new ProgressBar(System.out, "loading ");
            application.load(c, scale, seed, bar::update);
            c.commit();
            double seconds = (System.nanoTime() - start) / 1e9;
            bar.done(String.format("%.1f s", seconds));
            System.out.printf("load: OK (%s, %s, %.1f s)%n", app, application.describeScale(scale), seconds);
            return 0;
        } catch (Exception e) {
            System.out.println();
            System.out.println("load: FAILED: " + e);
            return 1;
        }
    }
}
