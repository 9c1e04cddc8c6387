package dev.gyro.agent;

import dev.gyro.agent.bridge.Bridge;
import dev.gyro.agent.bridge.Premain;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

/**
 * The agent's jar, as {@code -javaagent:} takes it: the bridge's classes (all the application's class loader sees of
 * Gyro) and a manifest naming the entry ({@link Premain}) and Gyro's own jars, which a class loader apart loads
 * (docs/decisions/34-attaching.md).
 */
public final class AgentJar {

    /** The bridge's classes, by binary name. */
    private static final List<String> BRIDGE = List.of(Bridge.class.getName(), Bridge.Handler.class.getName(),
            Bridge.Ran.class.getName(),
            Premain.class.getName(), Premain.class.getName() + "$Apart");

    private AgentJar() {}

    /**
     * Writes {@code dir/gyro-agent.jar}.
     *
     * @param classPath Gyro's jars and class folders (a class path, {@link java.io.File#pathSeparator} between entries)
     */
    public static Path write(Path dir, String classPath) throws IOException {
        Files.createDirectories(dir);
        StringBuilder urls = new StringBuilder();
        for (String entry : classPath.split(java.io.File.pathSeparator)) {
            if (entry.isBlank()) continue;
            Path p = Path.of(entry).toAbsolutePath();
            String uri = p.toUri().toString();
            urls.append(urls.length() == 0 ? "" : " ").append(Files.isDirectory(p) && !uri.endsWith("/") ? uri + "/" : uri);
        }
        Manifest manifest = new Manifest();
        Attributes a = manifest.getMainAttributes();
        a.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        a.putValue("Premain-Class", Premain.class.getName());
        a.putValue("Can-Retransform-Classes", "true");
        a.putValue(Premain.CLASS_PATH, urls.toString());
        Path jar = dir.resolve("gyro-agent.jar");
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out, manifest)) {
            for (String c : BRIDGE) {
                String name = c.replace('.', '/') + ".class";
                try (InputStream in = Bridge.class.getClassLoader().getResourceAsStream(name)) {
                    if (in == null) throw new IOException("the bridge's class " + name + " is not on the class path");
                    j.putNextEntry(new JarEntry(name));
                    in.transferTo(j);
                    j.closeEntry();
                }
            }
        }
        return jar;
    }
}
