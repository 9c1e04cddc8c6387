package dev.gyro.analyzer.java;

import com.github.javaparser.ast.expr.BooleanLiteralExpr;
import com.github.javaparser.ast.expr.CharLiteralExpr;
import com.github.javaparser.ast.expr.DoubleLiteralExpr;
import com.github.javaparser.ast.expr.Expression;
import com.github.javaparser.ast.expr.IntegerLiteralExpr;
import com.github.javaparser.ast.expr.LongLiteralExpr;
import com.github.javaparser.ast.expr.StringLiteralExpr;
import com.github.javaparser.ast.expr.TextBlockLiteralExpr;

import java.util.Map;
import java.util.Set;

/**
 * Whether an argument of a known static type can be passed to a parameter, for telling overloads apart
 * (the analysis has no symbol solver). Only clear mismatches count: a string where a number is expected,
 * a number or a boolean where a string is, a boolean where a number is; anything else (objects, generics,
 * types of the sources) may pass.
 */
final class Overloads {
    private enum Family { TEXT, NUMBER, BOOLEAN }

    private static final Map<String, Family> FAMILIES = Map.ofEntries(
            Map.entry("String", Family.TEXT), Map.entry("CharSequence", Family.TEXT),
            Map.entry("boolean", Family.BOOLEAN), Map.entry("Boolean", Family.BOOLEAN),
            Map.entry("byte", Family.NUMBER), Map.entry("short", Family.NUMBER), Map.entry("int", Family.NUMBER),
            Map.entry("long", Family.NUMBER), Map.entry("float", Family.NUMBER), Map.entry("double", Family.NUMBER),
            Map.entry("char", Family.NUMBER), Map.entry("Byte", Family.NUMBER), Map.entry("Short", Family.NUMBER),
            Map.entry("Integer", Family.NUMBER), Map.entry("Long", Family.NUMBER), Map.entry("Float", Family.NUMBER),
            Map.entry("Double", Family.NUMBER), Map.entry("BigDecimal", Family.NUMBER));
    private static final Set<String> NARROW_INTEGRAL = Set.of("byte", "short", "int", "char");

    private Overloads() {
    }

    static String literalType(Expression e) {
        if (e instanceof StringLiteralExpr || e instanceof TextBlockLiteralExpr) {
            return "String";
        }
        if (e instanceof IntegerLiteralExpr) {
            return "int";
        }
        if (e instanceof LongLiteralExpr) {
            return "long";
        }
        if (e instanceof DoubleLiteralExpr) {
            return "double";
        }
        if (e instanceof BooleanLiteralExpr) {
            return "boolean";
        }
        return e instanceof CharLiteralExpr ? "char" : null;
    }

    static boolean mayPass(String argument, String parameter) {
        Family a = FAMILIES.get(argument);
        Family p = FAMILIES.get(parameter);
        if (a == null || p == null) {
            return true;
        }
        if (a != p) {
            return false;
        }
        // a long or a floating-point value does not go into an int parameter without a cast
        return !(NARROW_INTEGRAL.contains(parameter) && (argument.equals("long") || argument.equals("Long")
                || argument.equals("double") || argument.equals("float") || argument.equals("Double")
                || argument.equals("Float")));
    }
}
