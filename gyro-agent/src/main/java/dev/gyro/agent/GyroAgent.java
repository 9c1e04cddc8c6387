package dev.gyro.agent;

import dev.gyro.app.Classification;
import dev.gyro.cluster.LocalCluster;
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
 * <p>OPTIONS, comma-separated: {@code classification=FILE}, the classification file naming the application's methods;
 * {@code dir=DIR}, to run the calls over instances on SQLite databases in DIR ({@code instances=N}, 3 by default),
 * taking the application's connections over ({@link Takeover}); without {@code dir}, calls are only counted.
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
        if (given.containsKey("dir")) runOver(Path.of(given.get("dir")), instances(given), methods, instrumentation);
        Runtime.getRuntime().addShutdownHook(new Thread(GyroAgent::report, "gyro-agent-report"));
        System.err.println(PREFIX + "attached to " + methods.size() + " transaction method(s)");
    }

    private static int instances(Map<String, String> given) {
        String n = given.getOrDefault("instances", "3");
        try {
            int i = Integer.parseInt(n);
            if (i >= 1 && i <= 64) return i;
        } catch (NumberFormatException e) {
            // below
        }
        throw new IllegalArgumentException("instances=" + n + ": a number of instances from 1 to 64");
    }

    /**
     * Calls run as requests over {@code n} instances on SQLite databases in {@code dir}: the application's connections
     * are taken over at once (its schema and data reach every instance's database), and the instances start at the
     * first call.
     */
    private static void runOver(Path dir, int n, List<AttachedMethod> methods, Instrumentation instrumentation) {
        try {
            Files.createDirectories(dir);
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("dir=" + dir + " cannot be created: " + e.getMessage());
        }
        String prefix = "jdbc:sqlite:" + dir.toAbsolutePath();
        Takeover takeover = new Takeover(n, i -> "jdbc:sqlite:" + LocalCluster.databaseFile(dir.toAbsolutePath(), i),
                prefix);
        Takeover.activate(takeover);
        new AgentBuilder.Default()
                .disableClassFormatChanges()
                .with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION) // a driver may be loaded already
                .type(ElementMatchers.isSubTypeOf(java.sql.Driver.class).and(ElementMatchers.not(ElementMatchers.isInterface())))
                .transform((builder, type, loader, module, domain) -> builder.visit(Advice.to(ConnectAdvice.class)
                        .on(ElementMatchers.named("connect").and(ElementMatchers.takesArguments(String.class,
                                java.util.Properties.class)))))
                .installOn(instrumentation);
        Object[] started = {null};
        AttachedApplication app = new AttachedApplication("attached", methods);
        Calls.runThrough(() -> {
            synchronized (started) {
                if (started[0] == null) {
                    try {
                        LocalCluster cluster = LocalCluster.create(dir.toAbsolutePath(), app, n, 1, 0, loaded -> {})
                                .startAll();
                        Attachment attachment = new Attachment(java.util.stream.IntStream.range(0, n)
                                .mapToObj(cluster::instance).toList());
                        takeover.serving();
                        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                            try {
                                // every global's update reaches every instance before the instances stop
                                if (!cluster.awaitQuiet(60_000))
                                    System.err.println(PREFIX + "the ring did not become quiet within 60 s");
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                            attachment.close();
                            cluster.close();
                        }, "gyro-agent-stop"));
                        started[0] = attachment;
                        System.err.println(PREFIX + n + " instances serve from " + dir);
                    } catch (java.io.IOException e) {
                        throw new java.sql.SQLException("gyro: the instances did not start: " + e.getMessage(), e);
                    }
                }
                return (Attachment) started[0];
            }
        });
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
            if (!Set.of("classification", "dir", "instances").contains(key)) unknown.add(key);
            m.put(key, eq < 0 ? "" : part.substring(eq + 1));
        }
        if (!unknown.isEmpty())
            throw new IllegalArgumentException("unknown agent option(s) " + unknown + "; known: classification=FILE,"
                    + " dir=DIR, instances=N");
        return m;
    }
}
