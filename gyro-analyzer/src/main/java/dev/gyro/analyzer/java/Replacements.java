package dev.gyro.analyzer.java;

import com.github.javaparser.ast.Node;
import com.github.javaparser.ast.body.CallableDeclaration;
import com.github.javaparser.ast.body.ConstructorDeclaration;
import com.github.javaparser.ast.body.MethodDeclaration;
import com.github.javaparser.ast.body.Parameter;
import com.github.javaparser.ast.body.VariableDeclarator;
import com.github.javaparser.ast.expr.AssignExpr;
import com.github.javaparser.ast.expr.Expression;
import com.github.javaparser.ast.expr.MethodCallExpr;
import com.github.javaparser.ast.expr.NameExpr;
import com.github.javaparser.ast.stmt.ForEachStmt;
import dev.gyro.analyzer.java.SourceIndex.TypeInfo;
import dev.gyro.analyzer.model.SourceRef;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Where the text a wrapper's constructor gave one of its private fields may be replaced afterwards: the calls, outside
 * the class's constructors, of the methods of the class that assign the field (its setters: {@code setSQL(text)}).
 * A call on an object the code names (a variable holding a {@code new Stmt(...)}, a field, a parameter, the object
 * itself) replaces a text the analysis could have followed: the field is then not fixed. A call on an object picked at
 * run time from outside the sources' own objects (an element of a registry of statements by name, a loop over its
 * values: a benchmark kit loading per-vendor dialect files) replaces texts the analysis cannot see: by the
 * {@link ReplacedSql} policy, the declared text is analyzed (with a warning naming the setter call) or the field is
 * not fixed (computed SQL). docs/decisions/33-declared-sql-texts.md says why.
 */
final class Replacements {
    /** A field's replacement sites, or null when some code replaces it that the analysis could follow. */
    record Sites(List<MethodCallExpr> calls) {
    }

    private final SourceIndex index;
    private final Map<String, Sites> cache = new HashMap<>();

    Replacements(SourceIndex index) {
        this.index = index;
    }

    /**
     * The run-time replacements of a private field of the type (empty when only constructors assign it), or null when
     * it is assigned where the analysis cannot tell what replaces it (outside a setter of its class, or by a setter
     * called on an object the code names).
     */
    Sites of(TypeInfo type, String field) {
        return cache.computeIfAbsent(type.name() + "#" + field, k -> compute(type, field));
    }

    private Sites compute(TypeInfo type, String field) {
        List<MethodDeclaration> setters = new ArrayList<>();
        for (AssignExpr a : type.declaration.findAll(AssignExpr.class)) {
            boolean target = a.getTarget() instanceof NameExpr n && n.getNameAsString().equals(field)
                    || a.getTarget() instanceof com.github.javaparser.ast.expr.FieldAccessExpr fa && fa.getNameAsString().equals(field);
            if (!target || a.findAncestor(ConstructorDeclaration.class).isPresent()) {
                continue;
            }
            MethodDeclaration m = a.findAncestor(MethodDeclaration.class).orElse(null);
            boolean ownField = a.getTarget() instanceof NameExpr || a.getTarget() instanceof com.github.javaparser.ast.expr.FieldAccessExpr fa
                    && fa.getScope() instanceof com.github.javaparser.ast.expr.ThisExpr;
            if (m == null || m.isStatic() || index.typeOf(m).orElse(null) != type || !ownField
                    || a.findAncestor(com.github.javaparser.ast.expr.LambdaExpr.class).isPresent()
                    || a.findAncestor(com.github.javaparser.ast.expr.ObjectCreationExpr.class).isPresent()) {
                return null; // another object's field, or code that may run at any time
            }
            if (!setters.contains(m)) {
                setters.add(m);
            }
        }
        List<MethodCallExpr> calls = new ArrayList<>();
        for (MethodDeclaration setter : setters) {
            for (var unit : index.units().values()) {
                for (MethodCallExpr call : unit.findAll(MethodCallExpr.class)) {
                    if (!call.getNameAsString().equals(setter.getNameAsString())
                            || call.getArguments().size() != setter.getParameters().size()) {
                        continue;
                    }
                    ConstructorDeclaration constructor = call.findAncestor(ConstructorDeclaration.class).orElse(null);
                    if (constructor != null && index.typeOf(constructor).orElse(null) == type && isOwn(call)) {
                        if (!topLevel(call, constructor)) {
                            return null; // a branch of the constructor may or may not replace the text
                        }
                        continue; // what the constructor makes is the declared text
                    }
                    if (!pickedAtRunTime(call) || textOfTheSources(call)) {
                        return null;
                    }
                    calls.add(call);
                }
            }
        }
        return new Sites(List.copyOf(calls));
    }

    /** The warning at each call, naming it. */
    Map<SourceRef, String> warnings(TypeInfo type, Sites sites) {
        Map<SourceRef, String> out = new java.util.LinkedHashMap<>();
        for (MethodCallExpr call : sites.calls()) {
            index.typeOf(call).ifPresent(t -> out.put(new SourceRef(t.file(), SourceIndex.line(call)),
                    type.name() + "." + call.getNameAsString() + " here may replace, at run time, the SQL text of a statement"
                            + " picked by code outside the sources: the text each statement is made with is analyzed"
                            + " (--replaced-sql computed takes such texts as computed SQL)"));
        }
        return out;
    }

    /** A statement of its own at the top level of the constructor ({@code this.setSQL(sql);}), which it always runs. */
    private static boolean topLevel(MethodCallExpr call, ConstructorDeclaration constructor) {
        return call.getParentNode().orElse(null) instanceof com.github.javaparser.ast.stmt.ExpressionStmt statement
                && statement.getParentNode().orElse(null) == constructor.getBody();
    }

    private static boolean isOwn(MethodCallExpr call) {
        return call.getScope().isEmpty() || call.getScope().get() instanceof com.github.javaparser.ast.expr.ThisExpr;
    }

    /**
     * Whether the receiver of a setter call is an object picked at run time by code outside the sources: the result of
     * a library call ({@code map.get(name)}), a local variable only such results are assigned to, or a for-each
     * variable over such a result ({@code stmts.values()}).
     */
    private boolean pickedAtRunTime(MethodCallExpr call) {
        if (call.getScope().isEmpty()) {
            return false;
        }
        Expression receiver = Interpreter.stripped(call.getScope().get());
        if (receiver instanceof MethodCallExpr picked) {
            return !declaredInSources(picked);
        }
        if (!(receiver instanceof NameExpr n)) {
            return false;
        }
        CallableDeclaration<?> method = call.findAncestor(CallableDeclaration.class).orElse(null);
        if (method == null) {
            return false;
        }
        String name = n.getNameAsString();
        List<Expression> definitions = new ArrayList<>();
        boolean declared = false;
        for (VariableDeclarator v : method.findAll(VariableDeclarator.class)) {
            if (!v.getNameAsString().equals(name)) {
                continue;
            }
            declared = true;
            if (v.getParentNode().flatMap(Node::getParentNode).orElse(null) instanceof ForEachStmt loop) {
                definitions.add(loop.getIterable());
            }
            v.getInitializer().ifPresent(definitions::add);
        }
        for (Parameter p : method.findAll(Parameter.class)) {
            if (p.getNameAsString().equals(name)) {
                return false; // the caller names the object
            }
        }
        for (AssignExpr a : method.findAll(AssignExpr.class)) {
            if (a.getTarget() instanceof NameExpr t && t.getNameAsString().equals(name)) {
                definitions.add(a.getValue());
            }
        }
        return declared && !definitions.isEmpty() && definitions.stream()
                .allMatch(d -> Interpreter.stripped(d) instanceof MethodCallExpr picked && !declaredInSources(picked));
    }

    /**
     * Whether the text a setter call gives is written in the sources (a string literal in its argument, or in the
     * values of the local variable it passes): a replacement the analysis could read, not one from outside.
     */
    private static boolean textOfTheSources(MethodCallExpr call) {
        List<Node> given = new ArrayList<>(call.getArguments());
        CallableDeclaration<?> method = call.findAncestor(CallableDeclaration.class).orElse(null);
        for (Expression argument : call.getArguments()) {
            if (method != null && Interpreter.stripped(argument) instanceof NameExpr n) {
                for (VariableDeclarator v : method.findAll(VariableDeclarator.class)) {
                    if (v.getNameAsString().equals(n.getNameAsString())) {
                        v.getInitializer().ifPresent(given::add);
                    }
                }
                for (AssignExpr a : method.findAll(AssignExpr.class)) {
                    if (a.getTarget() instanceof NameExpr t && t.getNameAsString().equals(n.getNameAsString())) {
                        given.add(a.getValue());
                    }
                }
            }
        }
        return given.stream().anyMatch(g -> g instanceof com.github.javaparser.ast.expr.StringLiteralExpr
                || g instanceof com.github.javaparser.ast.expr.TextBlockLiteralExpr
                || !g.findAll(com.github.javaparser.ast.expr.StringLiteralExpr.class).isEmpty()
                || !g.findAll(com.github.javaparser.ast.expr.TextBlockLiteralExpr.class).isEmpty());
    }

    private boolean declaredInSources(MethodCallExpr call) {
        for (TypeInfo t : index.allTypes()) {
            for (MethodDeclaration m : index.methods(t)) {
                if (m.getNameAsString().equals(call.getNameAsString())) {
                    return true;
                }
            }
        }
        return false;
    }
}
