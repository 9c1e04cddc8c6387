package dev.gyro.analyzer.java;

import com.github.javaparser.ast.Node;
import com.github.javaparser.ast.body.CallableDeclaration;
import com.github.javaparser.ast.body.VariableDeclarator;
import com.github.javaparser.ast.expr.AssignExpr;
import com.github.javaparser.ast.expr.Expression;
import com.github.javaparser.ast.expr.IntegerLiteralExpr;
import com.github.javaparser.ast.expr.MethodCallExpr;
import com.github.javaparser.ast.expr.NameExpr;
import com.github.javaparser.ast.expr.StringLiteralExpr;
import com.github.javaparser.ast.expr.VariableDeclarationExpr;
import com.github.javaparser.ast.stmt.BlockStmt;
import com.github.javaparser.ast.stmt.TryStmt;
import dev.gyro.analyzer.model.SourceRef;
import dev.gyro.analyzer.model.Value;

import java.util.Set;
import java.util.function.Function;

/**
 * Which query a value read from a ResultSet comes from: {@code rs.getLong(1)} where {@code rs} was declared
 * as {@code ps.executeQuery()} and {@code ps} as {@code c.prepareStatement(SQL)} (or {@code
 * st.executeQuery(SQL)}), each the nearest declaration in scope and never reassigned. The analysis uses it
 * to know that a key read from a row names that row (gyro-analyzer/README.md, "values read from a row").
 */
final class ResultOrigins {
    private static final Set<String> PREPARE = Set.of("prepareStatement", "prepareCall");

    private ResultOrigins() {
    }

    static Value.Free.ReadAt of(MethodCallExpr getter, CallableDeclaration<?> method, Function<Node, SourceRef> at) {
        if (method == null || getter.getScope().isEmpty() || !(getter.getScope().get() instanceof NameExpr rs)) {
            return null;
        }
        Expression arg = getter.getArgument(0);
        int item = arg instanceof IntegerLiteralExpr i ? i.asNumber().intValue() : -1;
        String label = arg instanceof StringLiteralExpr s ? s.asString() : null;
        if (item < 1 && label == null) {
            return null;
        }
        MethodCallExpr execute = initializer(rs.getNameAsString(), getter, method);
        if (execute == null || !execute.getNameAsString().equals("executeQuery") || execute.getScope().isEmpty()) {
            return null;
        }
        if (execute.getArguments().size() == 1) {
            return new Value.Free.ReadAt(at.apply(execute), item, label); // st.executeQuery(SQL)
        }
        Expression statement = execute.getScope().get();
        MethodCallExpr prepare = statement instanceof MethodCallExpr m ? m
                : statement instanceof NameExpr ps ? initializer(ps.getNameAsString(), execute, method) : null;
        if (prepare == null || !PREPARE.contains(prepare.getNameAsString()) || !execute.getArguments().isEmpty()) {
            return null;
        }
        return new Value.Free.ReadAt(at.apply(prepare), item, label);
    }

    /** The call initializing the nearest declaration of {@code name} in scope at {@code use}, never reassigned. */
    private static MethodCallExpr initializer(String name, Node use, CallableDeclaration<?> method) {
        VariableDeclarator best = null;
        for (VariableDeclarator v : method.findAll(VariableDeclarator.class, v -> v.getNameAsString().equals(name))) {
            if (v.getBegin().isEmpty() || use.getBegin().isEmpty() || !v.getBegin().get().isBefore(use.getBegin().get())) {
                continue;
            }
            Node scope = scopeOf(v);
            if (scope != null && use.isDescendantOf(scope) && (best == null || best.getBegin().get().isBefore(v.getBegin().get()))) {
                best = v;
            }
        }
        if (best == null || best.getInitializer().isEmpty() || !(best.getInitializer().get() instanceof MethodCallExpr call)) {
            return null;
        }
        boolean reassigned = !method.findAll(AssignExpr.class,
                a -> a.getTarget() instanceof NameExpr n && n.getNameAsString().equals(name)).isEmpty();
        return reassigned ? null : call;
    }

    /** Where a local declaration is visible: its try statement (a resource) or its enclosing block. */
    private static Node scopeOf(VariableDeclarator v) {
        Node decl = v.getParentNode().orElse(null);
        if (!(decl instanceof VariableDeclarationExpr)) {
            return null;
        }
        Node parent = decl.getParentNode().orElse(null);
        if (parent instanceof TryStmt) {
            return parent;
        }
        return parent == null ? null : parent.getParentNode().filter(p -> p instanceof BlockStmt).orElse(null);
    }
}
