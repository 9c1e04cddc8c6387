package dev.gyro.analyzer.java;

import com.github.javaparser.ast.CompilationUnit;
import com.github.javaparser.ast.ImportDeclaration;
import com.github.javaparser.ast.body.MethodDeclaration;
import com.github.javaparser.ast.body.Parameter;
import com.github.javaparser.ast.type.ArrayType;
import com.github.javaparser.ast.type.ClassOrInterfaceType;
import com.github.javaparser.ast.type.Type;
import dev.gyro.app.Classification;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A transaction's method as the classification file names it (docs/decisions/34-attaching.md): its class's binary
 * name, its name, and its parameters with their types written as Java writes them, resolved from the source without a
 * symbol solver, in Java's order: primitives; a name with a package as written; a single-type import; a type of the
 * same package in the sources; an on-demand import or {@code java.lang} (a type of the sources in that package, or a
 * class of the platform such as {@code java.sql.Connection}); a nested type of the sources; else the declaring file's
 * package. Type arguments are erased, as the JVM erases them.
 */
final class MethodNames {

    private static final Set<String> JAVA_LANG = Set.of("String", "Object", "Long", "Integer", "Short", "Byte",
            "Double", "Float", "Boolean", "Character", "Number", "CharSequence", "Iterable", "Comparable", "Enum",
            "Class", "Void", "Math", "StringBuilder", "Exception", "RuntimeException", "Throwable");

    private MethodNames() {}

    static Classification.Method of(SourceIndex.TypeInfo owner, MethodDeclaration m, SourceIndex index) {
        CompilationUnit unit = m.findCompilationUnit().orElse(null);
        List<Classification.Parameter> ps = new ArrayList<>();
        for (Parameter p : m.getParameters()) {
            String type = name(p.getType(), unit, index);
            ps.add(new Classification.Parameter(p.getNameAsString(), p.isVarArgs() ? type + "[]" : type));
        }
        return new Classification.Method(owner.binaryName(), m.getNameAsString(), ps);
    }

    private static String name(Type type, CompilationUnit unit, SourceIndex index) {
        if (type instanceof ArrayType a) return name(a.getComponentType(), unit, index) + "[]";
        if (type.isPrimitiveType()) return type.asString();
        if (!(type instanceof ClassOrInterfaceType c)) return type.asString();
        String written = c.getNameWithScope();
        if (written.contains(".") && Character.isLowerCase(written.charAt(0))) return written; // qualified by package
        String simple = written.contains(".") ? written.substring(0, written.indexOf('.')) : written;
        String nested = written.contains(".") ? written.substring(written.indexOf('.')).replace('.', '$') : "";
        String pkg = unit == null ? "" : unit.getPackageDeclaration().map(d -> d.getNameAsString()).orElse("");
        List<String> onDemand = new ArrayList<>();
        if (unit != null)
            for (ImportDeclaration i : unit.getImports()) {
                if (i.isStatic()) continue;
                if (i.isAsterisk()) onDemand.add(i.getNameAsString());
                else if (i.getNameAsString().endsWith("." + simple)) return i.getNameAsString() + nested;
            }
        // as Java resolves a simple name: a type of the same package, then the on-demand imports and java.lang
        for (SourceIndex.TypeInfo t : index.typesNamed(simple))
            if (t.binaryName().equals(qualified(pkg, simple))) return t.binaryName() + nested;
        onDemand.add("java.lang");
        for (String p : onDemand) {
            for (SourceIndex.TypeInfo t : index.typesNamed(simple))
                if (t.binaryName().equals(qualified(p, simple))) return t.binaryName() + nested;
            if (JAVA_LANG.contains(simple) && p.equals("java.lang") || loadable(qualified(p, simple)))
                return qualified(p, simple) + nested;
        }
        for (SourceIndex.TypeInfo t : index.typesNamed(simple)) return t.binaryName() + nested; // a nested type
        return qualified(pkg, simple) + nested;
    }

    private static String qualified(String pkg, String simple) {
        return pkg.isEmpty() ? simple : pkg + "." + simple;
    }

    /** A class of the platform or of the analyzer's own class path (java.sql.*, java.util.*), not initialized. */
    private static boolean loadable(String name) {
        try {
            Class.forName(name, false, MethodNames.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
