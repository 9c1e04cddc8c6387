package dev.gyro.agent;

import dev.gyro.app.Classification;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A classification of an unmodified application's own methods ({@link Classification.Method}), resolved against its
 * classes as Gyro attaches to it: every rule must name a method that exists, with exactly the parameter types given,
 * and every partitioning path must resolve to a value Gyro can route by. Every problem is reported at once, each
 * naming the transaction and what does not resolve.
 */
public final class AttachedMethods {

    private static final Map<String, Class<?>> PRIMITIVES = Map.of("boolean", boolean.class, "byte", byte.class,
            "short", short.class, "char", char.class, "int", int.class, "long", long.class, "float", float.class,
            "double", double.class);

    private AttachedMethods() {}

    /**
     * @param loader the application's class loader
     * @throws IllegalArgumentException listing every problem, one per line
     */
    public static List<AttachedMethod> resolve(Classification classification, ClassLoader loader) {
        List<AttachedMethod> resolved = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (Classification.Rule rule : classification.rules()) {
            try {
                resolved.add(resolve(rule, loader));
            } catch (IllegalArgumentException e) {
                problems.add(e.getMessage());
            }
        }
        if (!problems.isEmpty())
            throw new IllegalArgumentException("the classification does not match the application's classes:\n  "
                    + String.join("\n  ", problems));
        return resolved;
    }

    private static AttachedMethod resolve(Classification.Rule rule, ClassLoader loader) {
        String tx = "transaction " + rule.name();
        Classification.Method named = rule.method();
        if (named == null)
            throw new IllegalArgumentException(tx + " names no method of the application (\"method\": class, name,"
                    + " parameters)");
        String count = rule.partitionCountProblem();
        if (count != null) throw new IllegalArgumentException(count);
        Class<?> owner;
        try {
            owner = Class.forName(named.className(), false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalArgumentException(tx + ": class " + named.className() + " is not on the application's"
                    + " class path");
        }
        Class<?>[] types = new Class<?>[named.parameters().size()];
        for (int i = 0; i < types.length; i++) {
            String type = named.parameters().get(i).type();
            try {
                types[i] = type(type, loader);
            } catch (ClassNotFoundException | LinkageError e) {
                throw new IllegalArgumentException(tx + ": the type " + type + " of parameter "
                        + named.parameters().get(i).name() + " of " + named + " is not on the application's class path");
            }
        }
        Method method = find(owner, named.name(), types);
        if (method == null) {
            String others = Arrays.stream(owner.getDeclaredMethods()).filter(m -> m.getName().equals(named.name()))
                    .map(m -> Arrays.stream(m.getParameterTypes()).map(Class::getTypeName)
                            .collect(Collectors.joining(", ", "(", ")")))
                    .sorted().collect(Collectors.joining(", "));
            throw new IllegalArgumentException(tx + ": " + named.className() + " has no method " + named.name()
                    + Arrays.stream(types).map(Class::getTypeName).collect(Collectors.joining(", ", "(", ")"))
                    + (others.isEmpty() ? ", nor any method of that name" : "; its methods of that name take " + others));
        }
        List<String> names = named.parameters().stream().map(Classification.Parameter::name).toList();
        List<PartitionPath> paths = new ArrayList<>();
        for (String path : rule.partitionBy()) {
            try {
                paths.add(PartitionPath.resolve(path, names, types));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(tx + " is partitioned by '" + path + "', which does not resolve in "
                        + named + ": " + e.getMessage());
            }
        }
        return new AttachedMethod(rule, method, paths);
    }

    /** The method of {@code owner} or a superclass with exactly these parameter types, or null. */
    private static Method find(Class<?> owner, String name, Class<?>[] types) {
        for (Class<?> c = owner; c != null; c = c.getSuperclass()) {
            try {
                return c.getDeclaredMethod(name, types);
            } catch (NoSuchMethodException e) {
                // its superclass
            }
        }
        return null;
    }

    /** A type as Java writes it: {@code long}, {@code java.lang.String}, {@code int[][]}, {@code a.b.Outer$Inner}. */
    private static Class<?> type(String name, ClassLoader loader) throws ClassNotFoundException {
        if (name.endsWith("[]")) return type(name.substring(0, name.length() - 2), loader).arrayType();
        Class<?> primitive = PRIMITIVES.get(name);
        return primitive != null ? primitive : Class.forName(name, false, loader);
    }
}
