package dev.gyro.analyzer.java;

import com.github.javaparser.ast.body.TypeDeclaration;
import com.github.javaparser.ast.expr.AssignExpr;
import com.github.javaparser.ast.expr.Expression;
import com.github.javaparser.ast.expr.FieldAccessExpr;
import com.github.javaparser.ast.expr.NameExpr;

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

    static List<Expression> of(TypeDeclaration<?> type, String field) {
        List<Expression> out = new ArrayList<>();
        for (AssignExpr a : type.findAll(AssignExpr.class)) {
            Expression target = a.getTarget();
            boolean named = target instanceof NameExpr n && n.getNameAsString().equals(field)
                    || target instanceof FieldAccessExpr fa && fa.getNameAsString().equals(field); // other.sql too
            if (!named) {
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
