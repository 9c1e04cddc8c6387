package dev.gyro.agent;

import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The way from a call's arguments to one partitioning value, resolved against the application's classes: a parameter,
 * then, one step at a time, a field or getter of the value so far ({@code req.customer.id}) or an element of an array
 * ({@code ids[0]}). The value at its end must be of a type Gyro routes by: an integral number or a String.
 */
public final class PartitionPath {

    /** The types a partitioning value may have. */
    static final Set<Class<?>> ROUTABLE = Set.of(long.class, int.class, short.class, byte.class, Long.class,
            Integer.class, Short.class, Byte.class, String.class, BigInteger.class);

    /** One step from a value to the next. */
    private sealed interface Step permits Getter, FieldRead, Element {
        Object from(Object value) throws ReflectiveOperationException;
    }

    private record Getter(Method getter) implements Step {
        public Object from(Object value) throws ReflectiveOperationException {
            return getter.invoke(value);
        }
    }

    private record FieldRead(Field field) implements Step {
        public Object from(Object value) throws IllegalAccessException {
            return field.get(value);
        }
    }

    private record Element(int index) implements Step {
        public Object from(Object array) {
            return index < Array.getLength(array) ? Array.get(array, index) : null;
        }
    }

    private final String text;
    private final int parameter;
    private final List<Step> steps;
    /** The types of the values the path passes through: the parameter's, then each step's but the last. */
    private final List<Class<?>> through;

    private PartitionPath(String text, int parameter, List<Step> steps, List<Class<?>> through) {
        this.text = text;
        this.parameter = parameter;
        this.steps = List.copyOf(steps);
        this.through = List.copyOf(through);
    }

    /**
     * Why this path's value would not reach another process with the call's serialized arguments
     * (docs/decisions/38-attached-processes.md), or null: it passes through a value of a type that is not serializable,
     * or reads a transient field.
     */
    String notSerialized() {
        for (Class<?> t : through)
            if (!Processes.serializable(t))
                return "passes through a value of type " + t.getTypeName() + ", which is not serializable";
        for (Step s : steps)
            if (s instanceof FieldRead f && Modifier.isTransient(f.field().getModifiers()))
                return "reads the transient field " + f.field().getName() + ", which is not serialized";
        return null;
    }

    /** The path as the classification writes it. */
    public String text() {
        return text;
    }

    /**
     * The partitioning value of a call with {@code args}, or null where the path meets a null or ends past an array's
     * end (the caller says what that means for the call).
     */
    public Object valueOf(Object[] args) {
        Object v = args[parameter];
        try {
            for (Step s : steps) {
                if (v == null) return null;
                v = s.from(v);
            }
        } catch (InvocationTargetException e) {
            throw new IllegalStateException("reading partitioning value " + text + " failed: " + e.getCause(), e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("reading partitioning value " + text + " failed: " + e, e);
        }
        return v;
    }

    /**
     * Resolves {@code text} against a method's parameters ({@code names}, {@code types}).
     *
     * @throws IllegalArgumentException saying which step does not resolve, and why
     */
    static PartitionPath resolve(String text, List<String> names, Class<?>[] types) {
        List<String> tokens = tokens(text);
        int parameter = names.indexOf(tokens.get(0));
        if (parameter < 0)
            throw new IllegalArgumentException("'" + tokens.get(0) + "' is not one of its parameters " + names);
        Class<?> type = types[parameter];
        String sofar = tokens.get(0);
        List<Step> steps = new ArrayList<>();
        List<Class<?>> through = new ArrayList<>();
        for (String token : tokens.subList(1, tokens.size())) {
            through.add(type);
            if (token.startsWith("[")) {
                if (!type.isArray())
                    throw new IllegalArgumentException(sofar + " is not an array (its type is " + type.getTypeName() + ")");
                steps.add(new Element(Integer.parseInt(token.substring(1, token.length() - 1))));
                type = type.getComponentType();
                sofar += token;
                continue;
            }
            Step step = member(type, token);
            if (step == null)
                throw new IllegalArgumentException(sofar + " (of type " + type.getTypeName() + ") has no field or getter '"
                        + token + "'");
            steps.add(step);
            type = step instanceof Getter g ? g.getter().getReturnType() : ((FieldRead) step).field().getType();
            sofar += "." + token;
        }
        if (!ROUTABLE.contains(type))
            throw new IllegalArgumentException("its value's type " + type.getTypeName() + " cannot be routed: a"
                    + " partitioning value is an integral number or a String");
        return new PartitionPath(text, parameter, steps, through);
    }

    /** A public getter ({@code getX}, {@code isX}, or a record's {@code x()}), else a field, of {@code type}. */
    private static Step member(Class<?> type, String name) {
        String cap = Character.toUpperCase(name.charAt(0)) + name.substring(1);
        for (String g : List.of("get" + cap, "is" + cap, name)) {
            try {
                Method m = type.getMethod(g);
                if (m.getReturnType() != void.class && !Modifier.isStatic(m.getModifiers())) {
                    m.setAccessible(true); // a public method of a class that is not public itself
                    return new Getter(m);
                }
            } catch (NoSuchMethodException e) {
                // the next form
            }
        }
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            try {
                Field f = c.getDeclaredField(name);
                if (Modifier.isStatic(f.getModifiers())) return null;
                f.setAccessible(true);
                return new FieldRead(f);
            } catch (RuntimeException closed) { // a field of a module that does not open its package
                return null;
            } catch (NoSuchFieldException e) {
                // its superclass
            }
        }
        return null;
    }

    /** {@code req.lines[0].item} as {@code req}, {@code lines}, {@code [0]}, {@code item}. */
    private static List<String> tokens(String text) {
        List<String> tokens = new ArrayList<>();
        if (!text.matches("[\\p{javaJavaIdentifierStart}][\\p{javaJavaIdentifierPart}]*"
                + "(\\.[\\p{javaJavaIdentifierStart}][\\p{javaJavaIdentifierPart}]*|\\[\\d{1,9}])*"))
            throw new IllegalArgumentException("'" + text + "' is not a path: a parameter's name, then .field or"
                    + " .getter names and [index] elements");
        for (String part : text.split("\\.")) {
            int bracket = part.indexOf('[');
            tokens.add(bracket < 0 ? part : part.substring(0, bracket));
            for (int i = bracket; i >= 0; i = part.indexOf('[', i + 1))
                tokens.add(part.substring(i, part.indexOf(']', i) + 1));
        }
        return tokens;
    }
}
