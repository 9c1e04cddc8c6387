package dev.gyro.app;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.jar.JarFile;

/**
 * The applications Gyro can run, found with {@link ServiceLoader}: every jar on the class path or given as an
 * application jar that lists classes implementing {@link Application} in
 * {@code META-INF/services/dev.gyro.app.Application}. The built-in applications register the same way, so nothing
 * knows an application by a hard-coded name.
 *
 * <p>Bad input is refused with one line naming the jar, the class and the reason: a jar without an application,
 * a listed class that cannot be loaded or made, two applications with one name.
 */
public final class Applications {

    /** Where an application comes from, for messages: its jar, or "the class path". */
    public record Found(Application application, String origin) {
        public String name() {
            return application.name();
        }

        public String describe() {
            return "application '" + name() + "' (" + application.getClass().getName() + ", " + origin + ")";
        }
    }

    /** The origin of an application that is on the class path, not in an application jar. */
    public static final String CLASS_PATH = "the class path";

    /** The service file an application jar must carry. */
    public static final String SERVICE_FILE = "META-INF/services/" + Application.class.getName();

    private final Map<String, Found> byName;

    private Applications(Map<String, Found> byName) {
        this.byName = byName;
    }

    /** The built-in applications and those on the class path, without application jars. */
    public static Applications builtIn() {
        return load(List.of());
    }

    /**
     * The applications on the class path and in {@code jars} (each jar may also carry libraries its applications
     * need; every jar shares one class loader, whose parent holds Gyro's own API).
     *
     * @throws IllegalArgumentException one line naming the jar, class and reason, for a jar that does not exist, is
     *                                  not a jar, holds no application, lists a class that cannot be made, or adds an
     *                                  application whose name is taken
     */
    public static Applications load(Collection<Path> jars) {
        List<URL> urls = new ArrayList<>();
        Map<String, Path> jarByUrl = new LinkedHashMap<>();
        for (Path jar : jars) {
            Path abs = jar.toAbsolutePath().normalize();
            checkIsJar(abs);
            try {
                URL url = abs.toUri().toURL();
                urls.add(url);
                jarByUrl.put(url.toString(), abs);
            } catch (MalformedURLException e) {
                throw new IllegalArgumentException("application jar " + abs + ": not a valid path: " + e.getMessage());
            }
        }
        ClassLoader parent = Applications.class.getClassLoader();
        ClassLoader loader = urls.isEmpty() ? parent
                : new URLClassLoader("gyro-applications", urls.toArray(URL[]::new), parent);
        Map<String, Found> byName = new TreeMap<>();
        Map<Path, Integer> perJar = new LinkedHashMap<>();
        jarByUrl.values().forEach(j -> perJar.put(j, 0));
        var providers = ServiceLoader.load(Application.class, loader).stream().iterator();
        while (true) {
            ServiceLoader.Provider<Application> provider;
            try {
                if (!providers.hasNext()) break;
                provider = providers.next();
            } catch (ServiceConfigurationError e) {
                throw new IllegalArgumentException(describeError(e, jarByUrl));
            }
            Path jar = jarOf(provider.type(), jarByUrl);
            String origin = jar == null ? CLASS_PATH : jar.toString();
            Application app;
            try {
                app = provider.get();
            } catch (ServiceConfigurationError e) {
                throw new IllegalArgumentException((jar == null ? "" : "application jar " + jar + ": ")
                        + provider.type().getName() + ": cannot be made: " + rootMessage(e));
            }
            String name = app.name();
            if (name == null || name.isBlank() || !name.matches("[A-Za-z0-9_.-]+"))
                throw new IllegalArgumentException((jar == null ? "" : "application jar " + jar + ": ")
                        + provider.type().getName() + ": name() must be a word of letters, digits, '_', '.' or '-', "
                        + "is '" + name + "'");
            Found found = new Found(app, origin);
            Found before = byName.put(name, found);
            if (before != null)
                throw new IllegalArgumentException((jar == null ? "" : "application jar " + jar + ": ")
                        + "two applications are named '" + name + "': " + before.application().getClass().getName()
                        + " (" + before.origin() + ") and " + app.getClass().getName() + " (" + origin + ")");
            if (jar != null) perJar.merge(jar, 1, Integer::sum);
        }
        for (Map.Entry<Path, Integer> e : perJar.entrySet())
            if (e.getValue() == 0) {
                // A jar whose listed classes came from an earlier jar: the same classes given twice.
                for (String cls : listed(e.getKey())) {
                    Path other;
                    try {
                        other = jarOf(Class.forName(cls, false, loader), jarByUrl);
                    } catch (ClassNotFoundException | LinkageError notLoadable) {
                        continue;
                    }
                    if (other != null && !other.equals(e.getKey()))
                        throw new IllegalArgumentException("application jar " + e.getKey() + ": its application "
                                + cls + " is also in application jar " + other + ", which comes first and wins;"
                                + " give one of them");
                }
                throw new IllegalArgumentException("application jar " + e.getKey() + ": holds no application: it needs "
                        + SERVICE_FILE + " naming a public class that implements " + Application.class.getName()
                        + " and has a public no-argument constructor");
            }
        return new Applications(byName);
    }

    /** Every application by name, in name order. */
    public List<Found> all() {
        return List.copyOf(byName.values());
    }

    public List<String> names() {
        return List.copyOf(byName.keySet());
    }

    /**
     * The application called {@code name}.
     *
     * @throws IllegalArgumentException naming the applications there are
     */
    public Found find(String name) {
        Found f = byName.get(name);
        if (f == null)
            throw new IllegalArgumentException("unknown application '" + name + "' (known: "
                    + String.join(", ", byName.keySet()) + "; an application of your own comes in a jar: --app-jar PATH)");
        return f;
    }

    private static void checkIsJar(Path jar) {
        if (!Files.isRegularFile(jar))
            throw new IllegalArgumentException("application jar " + jar + ": no such file");
        try (JarFile ignored = new JarFile(jar.toFile())) {
            // readable as a jar
        } catch (IOException e) {
            throw new IllegalArgumentException("application jar " + jar + ": not a jar file (" + e.getMessage() + ")");
        }
    }

    private static Path jarOf(Class<?> type, Map<String, Path> jarByUrl) {
        CodeSource cs = type.getProtectionDomain().getCodeSource();
        if (cs == null || cs.getLocation() == null) return null;
        return jarByUrl.get(cs.getLocation().toString());
    }

    /** A broken service entry: name the jar whose service file lists the class, when one of ours does. */
    private static String describeError(ServiceConfigurationError e, Map<String, Path> jarByUrl) {
        String message = rootMessage(e);
        for (Path jar : jarByUrl.values())
            for (String cls : listed(jar))
                if (message.contains(cls))
                    return "application jar " + jar + ": " + SERVICE_FILE + " lists " + cls + ", which " + reason(message);
        return "loading applications: " + message;
    }

    /** The classes a jar's service file lists (none when it has no such file). */
    private static List<String> listed(Path jar) {
        List<String> out = new ArrayList<>();
        try (JarFile j = new JarFile(jar.toFile())) {
            var entry = j.getEntry(SERVICE_FILE);
            if (entry == null) return out;
            String text = new String(j.getInputStream(entry).readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            for (String line : text.split("\\R")) {
                String cls = line.replaceAll("#.*", "").strip();
                if (!cls.isEmpty()) out.add(cls);
            }
            return out;
        } catch (IOException io) {
            throw new UncheckedIOException(io);
        }
    }

    private static String reason(String message) {
        if (message.contains("not found")) return "is not in the jar";
        if (message.contains("not a subtype")) return "does not implement " + Application.class.getName();
        if (message.contains("Unable to get public no-arg constructor") || message.contains("no-arg"))
            return "has no public no-argument constructor";
        return "cannot be loaded: " + message;
    }

    private static String rootMessage(Throwable e) {
        StringBuilder s = new StringBuilder(String.valueOf(e.getMessage()));
        for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause())
            s.append(": ").append(c);
        return s.toString();
    }
}
