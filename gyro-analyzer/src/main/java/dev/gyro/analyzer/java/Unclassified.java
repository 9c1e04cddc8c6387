package dev.gyro.analyzer.java;

import com.github.javaparser.ast.body.CallableDeclaration;
import com.github.javaparser.ast.body.MethodDeclaration;
import dev.gyro.analyzer.java.SourceIndex.TypeInfo;
import dev.gyro.analyzer.model.Diagnostic;
import dev.gyro.analyzer.model.SourceRef;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * Discovery never loses a transaction in silence. A public method that can execute SQL is either a
 * transaction, or runs inside one (a transaction calls it), or is listed here with why it is neither: a
 * request that runs it would be missing from the analysis, and a dropped reader can make the writers of
 * what it reads falsely local (Definition 1). {@code gyro analyze --strict} turns these warnings into an
 * error.
 */
public final class Unclassified {
    /** The start of every such warning's message, which {@code --strict} looks for. */
    public static final String PREFIX = "unclassified SQL: ";

    private Unclassified() {
    }

    static void warn(SourceIndex index, Interpreter interpreter, List<JavaFrontEnd.Candidate> candidates,
                     List<Diagnostic> diagnostics) {
        Set<CallableDeclaration<?>> covered = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        for (JavaFrontEnd.Candidate c : candidates) {
            covered.add(c.method());
            covered.addAll(c.walk().visited);
        }
        for (TypeInfo type : index.allTypes()) {
            for (MethodDeclaration m : index.methods(type)) {
                if (!m.isPublic() || m.getBody().isEmpty() || covered.contains(m) || JavaFrontEnd.programEntry(m)
                        || !interpreter.runsSql(m)) {
                    continue;
                }
                diagnostics.add(Diagnostic.warning(new SourceRef(type.file(), SourceIndex.line(m)), PREFIX
                        + "public method " + type.name() + "." + m.getNameAsString() + " can execute SQL but is not "
                        + "analyzed: it neither opens a connection, nor receives a Connection, nor uses one held in a "
                        + "field, and no transaction calls it. If requests run it, what it reads and writes is missing "
                        + "and transactions writing what it reads may be wrongly local (--strict makes this an error)"));
            }
        }
    }
}
