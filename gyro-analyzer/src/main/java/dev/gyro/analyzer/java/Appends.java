package dev.gyro.analyzer.java;

import com.github.javaparser.Position;
import com.github.javaparser.ast.Node;
import com.github.javaparser.ast.body.CallableDeclaration;
import com.github.javaparser.ast.body.TypeDeclaration;
import com.github.javaparser.ast.body.VariableDeclarator;
import com.github.javaparser.ast.expr.AssignExpr;
import com.github.javaparser.ast.expr.BinaryExpr;
import com.github.javaparser.ast.expr.ConditionalExpr;
import com.github.javaparser.ast.expr.Expression;
import com.github.javaparser.ast.expr.LambdaExpr;
import com.github.javaparser.ast.expr.MethodCallExpr;
import com.github.javaparser.ast.expr.NameExpr;
import com.github.javaparser.ast.expr.ObjectCreationExpr;
import com.github.javaparser.ast.expr.VariableDeclarationExpr;
import com.github.javaparser.ast.stmt.BlockStmt;
import com.github.javaparser.ast.stmt.CatchClause;
import com.github.javaparser.ast.stmt.DoStmt;
import com.github.javaparser.ast.stmt.ForEachStmt;
import com.github.javaparser.ast.stmt.ForStmt;
import com.github.javaparser.ast.stmt.IfStmt;
import com.github.javaparser.ast.stmt.SwitchEntry;
import com.github.javaparser.ast.stmt.TryStmt;
import com.github.javaparser.ast.stmt.WhileStmt;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * How a SQL text grows in a local variable before one use of it: a {@code StringBuilder}/{@code StringBuffer}
 * built by {@code append} calls (chained or not), or a {@code String} grown by {@code +=} (gyro-analyzer/README.md,
 * "SQL text"). Each append is a concatenation, as with {@code +}: a value appended where a literal goes is a value
 * bound like a placeholder, one appended into an identifier or keyword makes the SQL computed. What this cannot
 * follow gives a reason to widen instead of a plan: an append in a loop (a list of unknown length), a builder
 * changed by anything but {@code append} ({@code insert}, {@code setLength}, ...), reassigned, handed to another
 * method (which may append to it) or used in a lambda. An append that may not run before the use (in a branch, a
 * {@code catch}, a {@code try} left by an exception) gives texts with and without it: the union of the statements
 * the transaction may run, never fewer.
 */
final class Appends {
    private Appends() {
    }

    static final Set<String> BUILDERS = Set.of("StringBuilder", "StringBuffer");

    /** Methods of a builder that read it without changing it. */
    private static final Set<String> READS = Set.of("toString", "length", "charAt", "indexOf", "lastIndexOf",
            "isEmpty", "substring", "subSequence", "capacity", "equals", "hashCode", "compareTo", "chars",
            "ensureCapacity", "trimToSize");

    /** One append: the expression appended, and whether it may not have run when the text is used. */
    record Step(Expression appended, boolean conditional) {
    }

    /** The initial text's expression and the appends before the use; or why the text cannot be followed. */
    record Plan(Expression initial, List<Step> steps, String widened) {
        static Plan widen(String why) {
            return new Plan(null, List.of(), why);
        }
    }

    /**
     * The plan for variable {@code var} of {@code method}, as it is when evaluation reaches {@code upTo} (appends
     * whose method name, or {@code +=}, comes before it in the source).
     */
    static Plan of(CallableDeclaration<?> method, String var, boolean builder, Position upTo) {
        List<VariableDeclarator> declarations = method.findAll(VariableDeclarator.class,
                v -> v.getNameAsString().equals(var));
        if (declarations.size() != 1 || declarations.get(0).getInitializer().isEmpty()) {
            return Plan.widen("variable " + var + " is declared more than once or without a value");
        }
        VariableDeclarator declaration = declarations.get(0);
        if (declaration.getParentNode().orElse(null) instanceof VariableDeclarationExpr d
                && d.getParentNode().orElse(null) instanceof ForEachStmt) {
            return Plan.widen("variable " + var + " takes each element of a collection");
        }
        List<Node> appends = new ArrayList<>();
        for (NameExpr use : method.findAll(NameExpr.class, n -> n.getNameAsString().equals(var))) {
            Node parent = use.getParentNode().orElse(null);
            if (parent instanceof AssignExpr a && a.getTarget() == use) {
                if (builder || a.getOperator() != AssignExpr.Operator.PLUS) {
                    return Plan.widen("variable " + var + " is reassigned");
                }
                appends.add(a);
            } else if (builder) {
                String why = builderUse(use, parent, var);
                if (why != null) {
                    return Plan.widen(why);
                }
                if (parent instanceof MethodCallExpr call && call.getNameAsString().equals("append")) {
                    for (MethodCallExpr c = call; c != null; c = chainedAppend(c)) {
                        appends.add(c);
                    }
                }
            }
        }
        appends.sort(Comparator.comparing(Appends::at));
        List<Step> steps = new ArrayList<>();
        for (Node a : appends) {
            if (!at(a).isBefore(upTo)) {
                continue;
            }
            Node container = enclosing(declaration);
            String loop = loopBetween(a, container);
            if (loop != null) {
                return Plan.widen(var + " is appended to " + loop + ": a text of unknown length");
            }
            Expression appended = a instanceof AssignExpr assign ? assign.getValue() : ((MethodCallExpr) a).getArgument(0);
            steps.add(new Step(appended, conditionalBetween(a, container, upTo)));
        }
        return new Plan(declaration.getInitializer().get(), steps, null);
    }

    /** Why a use of a builder stops the text from being followed, or null when it only appends or reads. */
    private static String builderUse(NameExpr use, Node parent, String var) {
        if (parent instanceof MethodCallExpr call && call.getScope().orElse(null) == use) {
            String n = call.getNameAsString();
            if (n.equals("append")) {
                for (MethodCallExpr c = call; c != null; c = chainedAppend(c)) {
                    if (c.getArguments().size() != 1) {
                        return var + ".append with " + c.getArguments().size() + " arguments (a part of a text)";
                    }
                }
                return null;
            }
            return READS.contains(n) ? null : var + "." + n + "(...) changes the text";
        }
        if (parent instanceof BinaryExpr || parent instanceof com.github.javaparser.ast.stmt.ReturnStmt) {
            return null; // read as a string ("..." + sb), or handed back: its appends here are all this method makes
        }
        if (parent instanceof MethodCallExpr call && call.getArguments().contains(use)
                && (call.getNameAsString().equals("append") || call.getNameAsString().equals("valueOf"))) {
            return null; // copied into another text
        }
        if (parent instanceof VariableDeclarator) {
            return var + " is shared with another variable";
        }
        return var + " is handed to `" + Interpreter.shortJava(parent == null ? use : parent) + "`, which may change it";
    }

    /** {@code sb.append(a).append(b)}: the append called on the result of this one, if any. */
    private static MethodCallExpr chainedAppend(MethodCallExpr call) {
        return call.getParentNode().orElse(null) instanceof MethodCallExpr outer && outer.getScope().orElse(null) == call
                && outer.getNameAsString().equals("append") ? outer : null;
    }

    /** Where an append happens in the source: its method name (a chain's appends in the order they run). */
    private static Position at(Node append) {
        Node where = append instanceof MethodCallExpr call ? call.getName() : append;
        return where.getBegin().orElse(Position.HOME);
    }

    /** The block (or other node) the declaration's scope is. */
    private static Node enclosing(VariableDeclarator declaration) {
        Node n = declaration.getParentNode().orElse(declaration);
        while (!(n instanceof BlockStmt) && n.getParentNode().isPresent() && !(n instanceof CallableDeclaration)) {
            n = n.getParentNode().get();
        }
        return n;
    }

    /** A loop, lambda or nested class between the append and the declaration's scope, named; null if none. */
    private static String loopBetween(Node append, Node container) {
        for (Node n = append.getParentNode().orElse(null); n != null && n != container; n = n.getParentNode().orElse(null)) {
            if (n instanceof ForStmt || n instanceof ForEachStmt || n instanceof WhileStmt || n instanceof DoStmt) {
                return "in a loop (line " + SourceIndex.line(n) + ")";
            }
            if (n instanceof LambdaExpr || n instanceof TypeDeclaration<?> || n instanceof ObjectCreationExpr o
                    && o.getAnonymousClassBody().isPresent()) {
                return "in a lambda or inner class (line " + SourceIndex.line(n) + ")";
            }
        }
        return null;
    }

    /** Whether the append may not have run when evaluation reaches {@code upTo}. */
    private static boolean conditionalBetween(Node append, Node container, Position upTo) {
        Node child = append;
        for (Node n = append.getParentNode().orElse(null); n != null && n != container; n = n.getParentNode().orElse(null)) {
            if (n instanceof IfStmt i && i.getCondition() != child || n instanceof SwitchEntry || n instanceof CatchClause
                    || n instanceof ConditionalExpr c && c.getCondition() != child
                    || n instanceof BinaryExpr b && b.getRight() == child && (b.getOperator() == BinaryExpr.Operator.AND
                    || b.getOperator() == BinaryExpr.Operator.OR)) {
                return true;
            }
            if (n instanceof TryStmt t && t.getTryBlock() == child && !contains(t.getTryBlock(), upTo)
                    && (!t.getCatchClauses().isEmpty() || t.getFinallyBlock().map(b -> contains(b, upTo)).orElse(false))) {
                return true; // an exception in the try block may skip it and still reach the use
            }
            child = n;
        }
        return false;
    }

    private static boolean contains(Node node, Position p) {
        return node.getRange().map(r -> r.contains(new com.github.javaparser.Range(p, p))).orElse(false);
    }
}
