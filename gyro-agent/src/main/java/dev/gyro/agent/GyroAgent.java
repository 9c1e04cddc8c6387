package dev.gyro.agent;

import dev.gyro.app.Classification;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.matcher.ElementMatchers;

import java.lang.instrument.Instrumentation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Gyro attached to an unmodified application as a Java agent ({@code java -javaagent:gyro-agent.jar=OPTIONS ...},
 * docs/decisions/34-attaching.md): the classification's methods are resolved against the application's classes (a
 * mismatch stops the application before its {@code main}, with every problem named), and each call of one of them is
 * a request ({@link Calls}); at exit, the calls of each transaction are reported on standard error.
 *
 * <p>OPTIONS: {@code classification=FILE}, the classification file naming the application's methods.
 */
public final class GyroAgent {

    /** Standard error lines begin with this. */
    static final String PREFIX = "gyro agent: ";

    private GyroAgent() {}

    public static void premain(String options, Instrumentation instrumentation) {
        try {
            attach(options, instrumentation);
        } catch (IllegalArgumentException e) {
            System.err.println(PREFIX + e.getMessage());
            System.err.println(PREFIX + "not attached; the application does not start");
            System.exit(2);
        }
    }

    static void attach(String options, Instrumentation instrumentation) {
        Map<String, String> given = options(options);
        String file = given.get("classification");
        if (file == null) throw new IllegalArgumentException("no classification=FILE in the agent's options");
        Path path = Path.of(file);
        if (!Files.isReadable(path)) throw new IllegalArgumentException("classification " + path + " cannot be read");
        Classification classification;
        try {
            classification = Classification.read(path);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(e.getMessage());
        }
        List<AttachedMethod> methods = AttachedMethods.resolve(classification, ClassLoader.getSystemClassLoader());
        Calls.attach(methods);
        Set<String> owners = methods.stream().map(m -> m.method().getDeclaringClass().getName())
                .collect(Collectors.toSet());
        ElementMatcher.Junction<MethodDescription> classified = ElementMatchers.none();
        for (AttachedMethod m : methods) classified = classified.or(ElementMatchers.is(m.method()));
        ElementMatcher.Junction<MethodDescription> advised = classified;
        new AgentBuilder.Default()
                .disableClassFormatChanges()
                .with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION) // resolving loaded the classes already
                .type(ElementMatchers.namedOneOf(owners.toArray(String[]::new)))
                .transform((builder, type, loader, module, domain) ->
                        builder.visit(Advice.to(CallAdvice.class).on(advised)))
                .installOn(instrumentation);
        Runtime.getRuntime().addShutdownHook(new Thread(GyroAgent::report, "gyro-agent-report"));
        System.err.println(PREFIX + "attached to " + methods.size() + " transaction method(s)");
    }

    /** Each transaction's calls, one line each. */
    private static void report() {
        for (Calls.Transaction t : Calls.transactions())
            System.err.println(PREFIX + t.name() + ": " + t.calls() + " call(s)"
                    + (t.failed() > 0 ? ", " + t.failed() + " ended with an exception" : ""));
    }

    /** {@code key=value,key=value}. */
    static Map<String, String> options(String options) {
        Map<String, String> m = new LinkedHashMap<>();
        if (options == null || options.isBlank()) return m;
        List<String> unknown = new ArrayList<>();
        for (String part : options.split(",")) {
            int eq = part.indexOf('=');
            String key = eq < 0 ? part : part.substring(0, eq);
            if (!key.equals("classification")) unknown.add(key);
            m.put(key, eq < 0 ? "" : part.substring(eq + 1));
        }
        if (!unknown.isEmpty())
            throw new IllegalArgumentException("unknown agent option(s) " + unknown + "; known: classification=FILE");
        return m;
    }
}
