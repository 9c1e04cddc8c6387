package dev.gyro.cli;

import dev.gyro.analyzer.AnalyzeCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * {@code gyro new-app NAME --dir D}: writes a standalone Maven project of a small working application, a bank, that
 * builds with {@code mvn package} against the Gyro artifacts the build installed, and runs with
 * {@code --app-jar D/target/NAME-0.1.0.jar --app NAME}. Its classification is written by {@code gyro analyze} on the
 * sources just written, as a user would regenerate it after changing a transaction (docs/your-application.md).
 */
@Command(name = "new-app", mixinStandardHelpOptions = true,
        description = "Write a new application project (a small bank: openAccount, deposit, balance, transfer) that "
                + "builds with 'mvn package' and runs on Gyro with --app-jar. See docs/your-application.md.")
final class NewAppCommand implements Callable<Integer> {

    /** Template resource, then its place in the project ({@code PKG} is the package's folder). */
    private static final Map<String, String> FILES = new LinkedHashMap<>();

    static {
        FILES.put("pom.xml.txt", "pom.xml");
        FILES.put("README.md.txt", "README.md");
        FILES.put("gitignore.txt", ".gitignore");
        for (String c : List.of("Bank", "OpenAccount", "Deposit", "Balance", "Transfer", "BankWorkload", "BankAudit"))
            FILES.put(c + ".java.txt", "src/main/java/PKG/" + c + ".java");
        FILES.put("services.txt", "src/main/resources/META-INF/services/dev.gyro.app.Application");
        for (String c : List.of("BankTest", "BankClientExample"))
            FILES.put(c + ".java.txt", "src/test/java/PKG/" + c + ".java");
    }

    @Parameters(index = "0", paramLabel = "NAME", description = "the application's name: lower-case letters, digits"
            + " and '-', starting with a letter (it is also the Maven artifactId and the --app name)")
    String name;

    @Option(names = "--dir", required = true, paramLabel = "DIR", description = "where the project goes: a new or"
            + " empty folder")
    Path dir;

    @Option(names = "--package", paramLabel = "PACKAGE", description = "the Java package (default: com.example.NAME)")
    String javaPackage;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        PrintWriter err = spec.commandLine().getErr();
        if (!name.matches("[a-z][a-z0-9-]{0,40}")) {
            err.println("gyro new-app: '" + name + "' is not a valid name: use lower-case letters, digits and '-',"
                    + " starting with a letter (e.g. bank)");
            return 2;
        }
        String pkg = javaPackage != null ? javaPackage : "com.example." + name.replace("-", "");
        if (!pkg.matches("[a-z_][a-z0-9_]*(\\.[a-z_][a-z0-9_]*)*")) {
            err.println("gyro new-app: '" + pkg + "' is not a valid Java package (lower-case words joined by '.')");
            return 2;
        }
        Path d = dir.toAbsolutePath().normalize();
        if (Files.exists(d) && (!Files.isDirectory(d) || !isEmpty(d))) {
            err.println("gyro new-app: " + d + " exists and is not an empty folder; new-app writes only into a new"
                    + " or empty one");
            return 2;
        }
        String pkgPath = pkg.replace('.', '/');
        Map<String, String> values = Map.of("__NAME__", name, "__PACKAGE__", pkg, "__PACKAGE_PATH__", pkgPath,
                "__GYRO_VERSION__", BuildSettings.version());
        for (Map.Entry<String, String> f : FILES.entrySet()) {
            Path target = d.resolve(f.getValue().replace("PKG", pkgPath));
            Files.createDirectories(target.getParent());
            Files.writeString(target, fill(template(f.getKey()), values));
        }
        // The classification, as gyro analyze writes it from the sources just written.
        Path classification = d.resolve("src/main/resources/" + pkgPath + "/classification.json");
        StringWriter report = new StringWriter();
        int analyzed = new CommandLine(new AnalyzeCommand()).setOut(new PrintWriter(report))
                .setErr(new PrintWriter(new StringWriter()))
                .execute(d.resolve("src/main/java").toString(), "--json", classification.toString());
        if (analyzed != 0 || !Files.exists(classification)) {
            err.println("gyro new-app: gyro analyze could not classify the new sources (exit " + analyzed + ")");
            return 1;
        }
        PrintWriter out = spec.commandLine().getOut();
        out.println("gyro new-app: wrote " + name + " (package " + pkg + ") in " + d);
        out.print(report);
        out.println("next:");
        out.println("  cd " + d + " && mvn -q package");
        out.println("  gyro cluster start --app-jar " + d.resolve("target/" + name + "-0.1.0.jar") + " --app " + name
                + " --instances 3 --detach --dir /tmp/" + name + "-cluster");
        out.println("  gyro call --cluster /tmp/" + name + "-cluster openAccount 1 100");
        out.println("see " + d.resolve("README.md"));
        return 0;
    }

    private static boolean isEmpty(Path d) throws IOException {
        try (Stream<Path> s = Files.list(d)) {
            return s.findAny().isEmpty();
        }
    }

    private static String template(String resource) {
        try (InputStream in = NewAppCommand.class.getResourceAsStream("scaffold/" + resource)) {
            if (in == null) throw new IllegalStateException("scaffold/" + resource + " is missing: rebuild Gyro");
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String fill(String text, Map<String, String> values) {
        for (Map.Entry<String, String> v : values.entrySet()) text = text.replace(v.getKey(), v.getValue());
        return text;
    }
}
