package dev.gyro.analyzer.java;

import com.github.javaparser.ast.Node;
import com.github.javaparser.ast.body.TypeDeclaration;
import com.github.javaparser.ast.expr.AssignExpr;
import com.github.javaparser.ast.expr.Expression;
import com.github.javaparser.ast.expr.FieldAccessExpr;
import com.github.javaparser.ast.expr.NameExpr;
import com.github.javaparser.ast.expr.UnaryExpr;

import java.util.ArrayList;
import java.util.List;

/**
 * The values a class assigns to one of its private fields ({@code this.sql = ...}, {@code sql = ...}
 * or {@code other.sql = ...} anywhere in its body, constructors and branches included; a local of the same
 * name only adds texts): a private field holds one of them (or its
 * initializer). A compound assignment ({@code +=}) makes the list unusable: it is then empty.
 */
final class FieldAssignments {
    private FieldAssignments() {
    }

    /** Whether code under the node changes a field or variable of that name ({@code =}, {@code +=}, {@code ++}...). */
    static boolean changedUnder(Node root, String field) {
        for (AssignExpr a : root.findAll(AssignExpr.class)) {
            if (named(a.getTarget(), field)) {
                return true;
            }
        }
        for (UnaryExpr u : root.findAll(UnaryExpr.class)) {
            if (named(u.getExpression(), field) && (u.getOperator() == UnaryExpr.Operator.PREFIX_INCREMENT
                    || u.getOperator() == UnaryExpr.Operator.PREFIX_DECREMENT || u.getOperator() == UnaryExpr.Operator.POSTFIX_INCREMENT
                    || u.getOperator() == UnaryExpr.Operator.POSTFIX_DECREMENT)) {
                return true;
            }
        }
        return false;
    }

    private static boolean named(Expression target, String field) {
        return target instanceof NameExpr n && n.getNameAsString().equals(field)
                || target instanceof FieldAccessExpr fa && fa.getNameAsString().equals(field);
    }

    static List<Expression> of(TypeDeclaration<?> type, String field) {
        List<Expression> out = new ArrayList<>();
        for (AssignExpr a : type.findAll(AssignExpr.class)) {
            if (!named(a.getTarget(), field)) { // other.sql too
                continue;
            }
            if (a.getOperator() != AssignExpr.Operator.ASSIGN) {
                return List.of();
            }
            out.add(a.getValue());
        }
        return out;
    }
}
