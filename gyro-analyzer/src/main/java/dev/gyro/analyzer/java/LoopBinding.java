package dev.gyro.analyzer.java;

import com.github.javaparser.ast.Node;
import com.github.javaparser.ast.body.VariableDeclarator;
import com.github.javaparser.ast.expr.ArrayAccessExpr;
import com.github.javaparser.ast.expr.AssignExpr;
import com.github.javaparser.ast.expr.BinaryExpr;
import com.github.javaparser.ast.expr.Expression;
import com.github.javaparser.ast.expr.FieldAccessExpr;
import com.github.javaparser.ast.expr.IntegerLiteralExpr;
import com.github.javaparser.ast.expr.MethodCallExpr;
import com.github.javaparser.ast.expr.NameExpr;
import com.github.javaparser.ast.expr.UnaryExpr;
import com.github.javaparser.ast.expr.VariableDeclarationExpr;
import com.github.javaparser.ast.stmt.ForEachStmt;
import com.github.javaparser.ast.stmt.ForStmt;
import com.github.javaparser.ast.stmt.Statement;
import dev.gyro.analyzer.model.Value;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Placeholders bound by a loop over a varargs parameter whose elements the call passed one by one
 * (gyro-analyzer/README.md): {@code for (int i = 0; i < args.length; i++) ps.setObject(i + 1, args[i]);} or
 * {@code int n = 1; for (Object a : args) ps.setObject(n++, a);}. Placeholder {@code start + j} gets element j. Any
 * other loop, or an array whose elements are not known, is not followed: its values are free.
 */
final class LoopBinding {
    private LoopBinding() {
    }

    /** The placeholder values a setter call inside such a loop binds, or null. */
    static Map<Integer, Value> of(MethodCallExpr setter, Function<String, List<Value>> arrays) {
        if (setter.getArguments().size() < 2) {
            return null;
        }
        Node parent = setter.getParentNode().orElse(null);
        while (parent != null && !(parent instanceof ForStmt) && !(parent instanceof ForEachStmt)) {
            parent = parent.getParentNode().orElse(null);
        }
        if (parent instanceof ForStmt loop) {
            return counted(loop, setter, arrays);
        }
        if (parent instanceof ForEachStmt loop) {
            return each(loop, setter, arrays);
        }
        return null;
    }

    /** {@code for (int i = S; i < a.length; i++) ps.setX(i + K, a[i])}. */
    private static Map<Integer, Value> counted(ForStmt loop, MethodCallExpr setter, Function<String, List<Value>> arrays) {
        if (loop.getInitialization().size() != 1 || !(loop.getInitialization().get(0) instanceof VariableDeclarationExpr init)
                || init.getVariables().size() != 1) {
            return null;
        }
        VariableDeclarator counter = init.getVariable(0);
        String i = counter.getNameAsString();
        Integer start = counter.getInitializer().map(LoopBinding::integer).orElse(null);
        if (start == null || loop.getUpdate().size() != 1 || !increments(loop.getUpdate().get(0), i)
                || modifiedIn(loop.getBody(), i)) {
            return null;
        }
        if (!(loop.getCompare().orElse(null) instanceof BinaryExpr cmp) || cmp.getOperator() != BinaryExpr.Operator.LESS
                || !isName(cmp.getLeft(), i) || !(cmp.getRight() instanceof FieldAccessExpr length)
                || !length.getNameAsString().equals("length") || !(length.getScope() instanceof NameExpr array)) {
            return null;
        }
        List<Value> elements = arrays.apply(array.getNameAsString());
        Integer offset = offset(setter.getArgument(0), i);
        if (elements == null || offset == null || !(setter.getArgument(1) instanceof ArrayAccessExpr element)
                || !isName(element.getName(), array.getNameAsString()) || !isName(element.getIndex(), i)) {
            return null;
        }
        Map<Integer, Value> out = new LinkedHashMap<>();
        for (int j = start; j < elements.size(); j++) {
            out.put(j + offset, elements.get(j));
        }
        return out;
    }

    /** {@code int n = S; for (Object a : args) ps.setX(n++, a)}: n declared just before the loop. */
    private static Map<Integer, Value> each(ForEachStmt loop, MethodCallExpr setter, Function<String, List<Value>> arrays) {
        if (!(loop.getIterable() instanceof NameExpr array) || !(setter.getArgument(0) instanceof UnaryExpr post)
                || post.getOperator() != UnaryExpr.Operator.POSTFIX_INCREMENT || !(post.getExpression() instanceof NameExpr n)
                || !isName(setter.getArgument(1), loop.getVariable().getVariable(0).getNameAsString())) {
            return null;
        }
        List<Value> elements = arrays.apply(array.getNameAsString());
        Integer start = startBefore(loop, n.getNameAsString());
        if (elements == null || start == null) {
            return null;
        }
        long incrementsOfN = loop.getBody().findAll(UnaryExpr.class, u -> isName(u.getExpression(), n.getNameAsString())).size();
        if (incrementsOfN != 1 || !loop.getBody().findAll(AssignExpr.class, a -> isName(a.getTarget(), n.getNameAsString())).isEmpty()) {
            return null;
        }
        Map<Integer, Value> out = new LinkedHashMap<>();
        for (int j = 0; j < elements.size(); j++) {
            out.put(start + j, elements.get(j));
        }
        return out;
    }

    /** The value {@code int n = S;} gives n in the statement right before the loop. */
    private static Integer startBefore(ForEachStmt loop, String n) {
        if (!(loop.getParentNode().orElse(null) instanceof com.github.javaparser.ast.stmt.BlockStmt block)) {
            return null;
        }
        int at = block.getStatements().indexOf(loop);
        if (at < 1 || !(block.getStatement(at - 1) instanceof com.github.javaparser.ast.stmt.ExpressionStmt es)
                || !(es.getExpression() instanceof VariableDeclarationExpr d) || d.getVariables().size() != 1
                || !d.getVariable(0).getNameAsString().equals(n)) {
            return null;
        }
        return d.getVariable(0).getInitializer().map(LoopBinding::integer).orElse(null);
    }

    /** K for an index {@code i + K}, {@code K + i} or {@code i}. */
    private static Integer offset(Expression index, String i) {
        if (isName(index, i)) {
            return 0;
        }
        if (index instanceof BinaryExpr b && b.getOperator() == BinaryExpr.Operator.PLUS) {
            if (isName(b.getLeft(), i)) {
                return integer(b.getRight());
            }
            if (isName(b.getRight(), i)) {
                return integer(b.getLeft());
            }
        }
        return null;
    }

    private static boolean increments(Expression update, String i) {
        return update instanceof UnaryExpr u && isName(u.getExpression(), i)
                && (u.getOperator() == UnaryExpr.Operator.POSTFIX_INCREMENT || u.getOperator() == UnaryExpr.Operator.PREFIX_INCREMENT);
    }

    private static boolean modifiedIn(Statement body, String i) {
        return !body.findAll(AssignExpr.class, a -> isName(a.getTarget(), i)).isEmpty()
                || !body.findAll(UnaryExpr.class, u -> isName(u.getExpression(), i)
                && u.getOperator() != UnaryExpr.Operator.MINUS && u.getOperator() != UnaryExpr.Operator.PLUS).isEmpty();
    }

    private static boolean isName(Expression e, String name) {
        return e instanceof NameExpr n && n.getNameAsString().equals(name);
    }

    private static Integer integer(Expression e) {
        return e instanceof IntegerLiteralExpr i ? i.asNumber().intValue() : null;
    }
}
