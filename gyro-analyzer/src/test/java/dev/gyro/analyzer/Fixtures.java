package dev.gyro.analyzer;

import dev.gyro.analyzer.model.AnalyzedTransaction;
import dev.gyro.analyzer.model.Entry;
import dev.gyro.analyzer.partition.Classification;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** Test helpers: the fixture applications, and small applications written on the fly. */
final class Fixtures {
    private Fixtures() {
    }

    /** A fixture folder under src/test/resources/fixtures. */
    static Path fixture(String name) {
        URL url = Fixtures.class.getResource("/fixtures/" + name);
        if (url == null) {
            throw new IllegalArgumentException("no fixture " + name);
        }
        try {
            return Path.of(url.toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static Path write(Path dir, String file, String content) {
        try {
            Path p = dir.resolve(file);
            Files.createDirectories(p.getParent());
            Files.writeString(p, content);
            return p;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Copies a fixture folder, leaving out the files whose names are given. */
    static Path copy(String fixture, Path to, String... without) {
        Path from = fixture(fixture);
        try (Stream<Path> walk = Files.walk(from)) {
            for (Path p : walk.filter(Files::isRegularFile).toList()) {
                if (List.of(without).contains(p.getFileName().toString())) {
                    continue;
                }
                Path target = to.resolve(from.relativize(p).toString());
                Files.createDirectories(target.getParent());
                Files.copy(p, target);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return to;
    }

    /**
     * A Gyro-model transaction class: {@code body} runs with {@code Connection c = ctx.connection()} in
     * scope and may use the helper {@code q(sql, values...)}-free plain JDBC.
     */
    static String gyroTransaction(String className, String parameters, String body) {
        return """
                package app;

                import dev.gyro.app.Transaction;
                import dev.gyro.app.TxContext;
                import java.sql.*;

                public final class %s implements Transaction {
                    public void run(TxContext ctx%s) throws SQLException {
                        Connection c = ctx.connection();
                %s
                    }
                }
                """.formatted(className, parameters.isEmpty() ? "" : ", " + parameters, body.indent(8));
    }

    /** A transaction running one prepared statement, binding ?1..?n to the given Java expressions. */
    static String oneStatement(String className, String parameters, String sql, String... bindings) {
        StringBuilder body = new StringBuilder();
        body.append("try (PreparedStatement ps = c.prepareStatement(\"").append(sql.replace("\"", "\\\"")).append("\")) {\n");
        for (int i = 0; i < bindings.length; i++) {
            body.append("    ps.setObject(").append(i + 1).append(", ").append(bindings[i]).append(");\n");
        }
        body.append(sql.trim().toUpperCase().startsWith("SELECT") ? "    ps.executeQuery();\n" : "    ps.executeUpdate();\n");
        body.append("}");
        return gyroTransaction(className, parameters, body.toString());
    }

    static AnalysisResult analyze(Path... paths) {
        return new Analyzer().analyze(List.of(paths));
    }

    static Classification classification(AnalysisResult r, String name) {
        return r.classification(name).orElseThrow(() -> new AssertionError("no transaction " + name + " in "
                + r.classifications().stream().map(Classification::name).toList()));
    }

    static AnalyzedTransaction transaction(AnalysisResult r, String name) {
        return r.transactions().stream().filter(t -> t.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no transaction " + name));
    }

    /** The entries of a transaction on one table, rendered {@code <attrs, condition>} without source. */
    static List<String> entries(List<Entry> set, String table) {
        return set.stream().filter(e -> e.table().equals(table))
                .map(e -> e.describeAttributes() + " | " + e.condition()).toList();
    }
}
