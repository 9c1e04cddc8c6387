package dev.gyro.agent;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * One JDBC object standing for the same object on every instance's database: each call is made on all of them, in
 * instance order, and the first one's answer is returned (a statement it returns stands for every instance's too). This
 * is how the application's own schema creation and loading, before Gyro serves its first call, leave every instance
 * with the same data (docs/decisions/34-attaching.md), as {@code gyro load} does.
 */
final class FanOut implements InvocationHandler {

    private final List<?> targets;

    private FanOut(List<?> targets) {
        this.targets = List.copyOf(targets);
    }

    @SuppressWarnings("unchecked")
    static <T> T of(Class<T> type, List<? extends T> targets) {
        return (T) Proxy.newProxyInstance(FanOut.class.getClassLoader(), new Class<?>[] {type}, new FanOut(targets));
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        if (method.getDeclaringClass() == Object.class) return objectMethod(proxy, method, args);
        List<Object> answers = new ArrayList<>(targets.size());
        for (Object target : targets) {
            try {
                answers.add(method.invoke(target, args));
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }
        Class<?> returned = method.getReturnType();
        if (Statement.class.isAssignableFrom(returned) && returned.isInterface())
            return of((Class<Object>) returned, answers);
        return answers.get(0);
    }

    private Object objectMethod(Object proxy, Method method, Object[] args) {
        return switch (method.getName()) {
            case "equals" -> proxy == args[0];
            case "hashCode" -> System.identityHashCode(proxy);
            default -> "every instance's " + targets.get(0);
        };
    }
}
