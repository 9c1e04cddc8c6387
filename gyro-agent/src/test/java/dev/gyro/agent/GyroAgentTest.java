package dev.gyro.agent;

import dev.gyro.agent.fixtures.Amalgamate;
import dev.gyro.agent.fixtures.App;
import dev.gyro.agent.fixtures.OrderService;
import dev.gyro.app.Classification;
import dev.gyro.app.Kind;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The agent attached to an application that knows nothing of Gyro, in a JVM of its own started as a user would
 * ({@code java -javaagent:...=classification=FILE -cp ... Main}): each call of a classified method is counted as a
 * request of its transaction, other methods are left alone, and a classification that does not match the classes stops
 * the application before its main, with the reason.
 */
@Tag("processes")
class GyroAgentTest {

    @TempDir
    Path dir;

    /** A jar holding only the agent's manifest: its classes are on the class path the test runs with. */
    private Path agentJar() throws IOException {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().putValue("Premain-Class", GyroAgent.class.getName());
        manifest.getMainAttributes().putValue("Can-Retransform-Classes", "true");
        Path jar = dir.resolve("gyro-agent.jar");
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out, manifest)) {
            // the manifest is all
        }
        return jar;
    }

    private record Run(int status, String out, String err) {}

    private Run run(Classification classification) throws Exception {
        Path file = dir.resolve("classification.json");
        classification.write(file);
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(java.toString(), "-javaagent:" + agentJar() + "=classification=" + file,
                "-cp", System.getProperty("java.class.path"), App.class.getName())
                .redirectOutput(dir.resolve("out.txt").toFile()).redirectError(dir.resolve("err.txt").toFile())
                .start();
        assertThat(p.waitFor(2, TimeUnit.MINUTES)).as("the application exits").isTrue();
        return new Run(p.exitValue(), Files.readString(dir.resolve("out.txt"), StandardCharsets.UTF_8),
                Files.readString(dir.resolve("err.txt"), StandardCharsets.UTF_8));
    }

    private static Classification.Rule rule(String name, Kind kind, List<String> by, Classification.Method method) {
        return new Classification.Rule(name, kind, false, by, "", method);
    }

    private static final Classification.Method AMALGAMATE = new Classification.Method(Amalgamate.class.getName(), "run",
            List.of(new Classification.Parameter("conn", "java.sql.Connection"),
                    new Classification.Parameter("custId0", "long"), new Classification.Parameter("custId1", "long")));

    @Test
    void eachCallOfAClassifiedMethodIsARequestOfItsTransaction() throws Exception {
        Classification c = new Classification(List.of(
                rule("Amalgamate", Kind.LOCAL_OR_GLOBAL, List.of("custId0", "custId1"), AMALGAMATE),
                rule("placeOrder", Kind.LOCAL, List.of("req.customer.id"), new Classification.Method(
                        OrderService.class.getName(), "placeOrder", List.of(new Classification.Parameter("req",
                        OrderService.class.getName() + "$OrderRequest"))))));
        Run r = run(c);
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out()).contains("refused: a call of " + OrderService.class.getName() + ".placeOrder(")
                .contains("has no partitioning value req.customer.id").contains("app done");
        assertThat(r.err()).contains("gyro agent: attached to 2 transaction method(s)")
                .contains("gyro agent: Amalgamate: 3 call(s)") // run(conn, String) is another method
                .contains("gyro agent: placeOrder: 1 call(s)"); // the refused one never began
    }

    @Test
    void aClassificationThatDoesNotMatchStopsTheApplicationBeforeItsMain() throws Exception {
        Classification c = new Classification(List.of(rule("Amalgamate", Kind.LOCAL, List.of("custId"),
                new Classification.Method(Amalgamate.class.getName(), "run",
                        List.of(new Classification.Parameter("custId", "int"))))));
        Run r = run(c);
        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err()).contains("gyro agent: the classification does not match the application's classes")
                .contains("transaction Amalgamate: " + Amalgamate.class.getName() + " has no method run(int)")
                .contains("not attached; the application does not start");
        assertThat(r.out()).doesNotContain("app done");
    }
}
