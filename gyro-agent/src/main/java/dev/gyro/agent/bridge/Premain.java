package dev.gyro.agent.bridge;

import java.io.IOException;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.InvocationTargetException;
import java.net.MalformedURLException;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.Manifest;

/**
 * The agent's entry ({@code Premain-Class} of the agent's jar): Gyro is loaded by a class loader of its own, from the
 * jars the manifest's {@code Gyro-Class-Path} names, whose parent is the platform's loader, so the application's
 * libraries (another Jackson, SLF4J binding or JDBC driver version) and Gyro's never meet; only {@link Bridge} is
 * shared (docs/decisions/34-attaching.md).
 */
public final class Premain {

    /** The manifest attribute naming Gyro's jars and folders, space-separated URLs. */
    public static final String CLASS_PATH = "Gyro-Class-Path";

    private Premain() {}

    public static void premain(String options, Instrumentation instrumentation) throws Exception {
        ClassLoader gyro = new Apart(gyroClassPath(), Premain.class.getClassLoader());
        try {
            gyro.loadClass("dev.gyro.agent.GyroAgent").getMethod("premain", String.class, Instrumentation.class)
                    .invoke(null, options, instrumentation);
        } catch (InvocationTargetException e) {
            throw e.getCause() instanceof Exception x ? x : new IllegalStateException(e.getCause());
        }
    }

    /**
     * The URLs the agent's jar names in {@link #CLASS_PATH}: found among the manifests on the class path, since this
     * class may have been loaded from another copy of it (an application whose class path holds Gyro's jars too).
     */
    private static URL[] gyroClassPath() throws IOException {
        String path = null;
        for (java.util.Enumeration<URL> m = Premain.class.getClassLoader().getResources("META-INF/MANIFEST.MF");
             path == null && m.hasMoreElements(); ) {
            try (java.io.InputStream in = m.nextElement().openStream()) {
                path = new Manifest(in).getMainAttributes().getValue(CLASS_PATH);
            }
        }
        if (path == null || path.isBlank())
            throw new IllegalStateException("no jar on the class path names " + CLASS_PATH + " in its manifest: start"
                    + " the agent with the jar gyro attach --agent names");
        List<URL> urls = new ArrayList<>();
        for (String u : path.trim().split("\\s+")) {
            try {
                urls.add(URI.create(u).toURL());
            } catch (MalformedURLException | IllegalArgumentException e) {
                throw new IllegalStateException(CLASS_PATH + ": not a URL: " + u);
            }
        }
        return urls.toArray(URL[]::new);
    }

    /** Gyro's loader: its own jars over the platform's classes, and the bridge from the application's loader. */
    static final class Apart extends URLClassLoader {
        private final ClassLoader bridge;

        Apart(URL[] urls, ClassLoader bridge) {
            super("gyro", urls, ClassLoader.getPlatformClassLoader());
            this.bridge = bridge;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (name.startsWith("dev.gyro.agent.bridge.")) return bridge.loadClass(name);
            return super.loadClass(name, resolve);
        }
    }
}
