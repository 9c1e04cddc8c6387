package dev.gyro.cli;

import dev.gyro.runtime.InstanceConfig;
import dev.gyro.wire.Wire;
import dev.gyro.cluster.Backend;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A cluster described in one YAML file ({@code gyro cluster start --config cluster.yaml}; the example is
 * {@code docs/cluster.yaml}): the application, the databases (throwaway ones Gyro makes, or existing ones by JDBC
 * URL), each instance's address, TLS and the bind address. Every value is checked before anything starts; an
 * error names the file, the line and the key.
 *
 * @param application the application's name
 * @param appJars     jars holding applications of one's own (resolved against the file's folder)
 * @param scale       the application's scale
 * @param seed        seed of the initial data
 * @param backend     the databases' kind
 * @param instances   how many instances
 * @param jdbcUrls    per instance its existing database, or empty when Gyro makes throwaway ones
 * @param addresses   per instance its address, or empty for free loopback ports
 * @param dir         the cluster's folder, or null for the command's {@code --dir}
 * @param tls         mutual TLS (false: plaintext, as {@code --insecure})
 * @param bind        the address instances listen on, or null for their ring address's host
 * @param maxRequestBytes the largest client request an instance takes
 */
record ClusterConfig(String application, List<Path> appJars, int scale, long seed, Backend backend, int instances,
                     List<String> jdbcUrls, List<String> addresses, Path dir, boolean tls, String bind,
                     int maxRequestBytes) {

    /** The keys a file may have, with what each takes (for the error of an unknown key). */
    static final Map<String, String> KEYS = keys();

    private static Map<String, String> keys() {
        Map<String, String> k = new LinkedHashMap<>();
        k.put("application", "the application's name (a built-in one, or one in appJars)");
        k.put("appJars", "a list of jars with applications of your own");
        k.put("scale", "the application's scale, a positive integer");
        k.put("seed", "the seed of the initial data, an integer");
        k.put("backend", "sqlite, postgres or mariadb: the throwaway databases Gyro makes");
        k.put("instances", "a count of instances on throwaway databases, or a list of {jdbc: URL, address: HOST:PORT}");
        k.put("dir", "the cluster's folder");
        k.put("tls", "true (mutual TLS, the default) or false (plaintext, anyone who reaches the ports is trusted)");
        k.put("bind", "the address the instances listen on (default: their own address's host)");
        k.put("maxRequestBytes", "the largest client request an instance takes, in bytes (default "
                + InstanceConfig.MAX_REQUEST_BYTES + "); a larger one is refused unread");
        return Map.copyOf(k);
    }

    /** Reads and checks {@code file}. @throws IllegalArgumentException naming file, line and key */
    static ClusterConfig read(Path file) throws IOException {
        if (!Files.isRegularFile(file)) throw new IllegalArgumentException("--config " + file + ": no such file");
        Node root;
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            root = new Yaml(new LoaderOptions()).compose(in);
        } catch (MarkedYAMLException e) {
            throw new IllegalArgumentException(file + ":" + (e.getProblemMark().getLine() + 1) + ": not valid YAML: "
                    + e.getProblem());
        } catch (YAMLException e) {
            throw new IllegalArgumentException(file + ": not valid YAML: " + e.getMessage());
        }
        return new Reading(file).cluster(root);
    }

    /** One file being read: its values checked one by one, each error at its line. */
    private record Reading(Path file) {

        ClusterConfig cluster(Node root) {
            if (root == null) throw error(null, "", "the file is empty; it needs at least 'application' and 'instances'");
            Map<String, NodeTuple> top = mapping(root, "the file");
            String application = text(required(root, top, "application"), "application");
            List<Path> jars = new ArrayList<>();
            if (top.containsKey("appJars")) {
                Node list = top.get("appJars").getValueNode();
                if (!(list instanceof SequenceNode seq)) throw error(list, "appJars", "expected a list of jar paths");
                for (int i = 0; i < seq.getValue().size(); i++)
                    jars.add(relative(text(seq.getValue().get(i), "appJars[" + i + "]")));
            }
            int scale = top.containsKey("scale") ? positive(top.get("scale").getValueNode(), "scale") : 1;
            long seed = top.containsKey("seed") ? integer(top.get("seed").getValueNode(), "seed") : 42;
            Path dir = top.containsKey("dir") ? relative(text(top.get("dir").getValueNode(), "dir")) : null;
            boolean tls = !top.containsKey("tls") || bool(top.get("tls").getValueNode(), "tls");
            String bind = top.containsKey("bind") ? text(top.get("bind").getValueNode(), "bind") : null;
            int maxRequestBytes = top.containsKey("maxRequestBytes")
                    ? within(top.get("maxRequestBytes").getValueNode(), "maxRequestBytes", 1024, Wire.MAX_MESSAGE_BYTES)
                    : InstanceConfig.MAX_REQUEST_BYTES;

            Node instancesNode = required(root, top, "instances");
            List<String> urls = new ArrayList<>();
            List<String> addresses = new ArrayList<>();
            Backend backend;
            int n;
            if (instancesNode instanceof SequenceNode seq) {
                if (seq.getValue().isEmpty()) throw error(seq, "instances", "the list is empty");
                for (int i = 0; i < seq.getValue().size(); i++) instance(seq.getValue().get(i), i, urls, addresses);
                n = seq.getValue().size();
                backend = urls.isEmpty() ? backend(top) : sameBackend(seq, urls);
                if (!urls.isEmpty() && top.containsKey("backend"))
                    throw error(top.get("backend").getKeyNode(), "backend", "give either 'backend' (throwaway databases)"
                            + " or a 'jdbc' URL per instance (existing databases), not both");
            } else {
                n = positive(instancesNode, "instances");
                backend = backend(top);
            }
            Map<String, Integer> seen = new HashMap<>();
            for (int i = 0; i < addresses.size(); i++) {
                Integer before = seen.put(addresses.get(i).toLowerCase(Locale.ROOT), i);
                if (before != null)
                    throw error(((SequenceNode) instancesNode).getValue().get(i), "instances[" + i + "].address",
                            addresses.get(i) + " is instance " + before + "'s address too; each instance needs its own");
            }
            return new ClusterConfig(application, List.copyOf(jars), scale, seed, backend, n, List.copyOf(urls),
                    List.copyOf(addresses), dir, tls, bind, maxRequestBytes);
        }

        private void instance(Node node, int i, List<String> urls, List<String> addresses) {
            String key = "instances[" + i + "]";
            Map<String, NodeTuple> m = mapping(node, key);
            for (String k : m.keySet())
                if (!Set.of("jdbc", "address").contains(k))
                    throw error(m.get(k).getKeyNode(), key + "." + k, "unknown key; an instance has 'jdbc' (its existing"
                            + " database's JDBC URL) and 'address' (HOST:PORT it listens on)");
            if (m.containsKey("jdbc")) {
                String url = text(m.get("jdbc").getValueNode(), key + ".jdbc");
                if (!url.startsWith("jdbc:"))
                    throw error(m.get("jdbc").getValueNode(), key + ".jdbc", "expected a JDBC URL such as"
                            + " jdbc:postgresql://HOST:PORT/DB?user=USER, got '" + url + "'");
                if (urls.size() != i)
                    throw error(node, key + ".jdbc", "either every instance names its database with 'jdbc' or none does");
                urls.add(url);
            } else if (!urls.isEmpty()) {
                throw error(node, key, "no 'jdbc': either every instance names its database or none does");
            }
            if (m.containsKey("address")) {
                Node a = m.get("address").getValueNode();
                String address = text(a, key + ".address");
                int colon = address.lastIndexOf(':');
                int port;
                try {
                    port = colon > 0 ? Integer.parseInt(address.substring(colon + 1)) : -1;
                } catch (NumberFormatException e) {
                    port = -1;
                }
                if (port < 1 || port > 65535)
                    throw error(a, key + ".address", "expected HOST:PORT with a port from 1 to 65535, got '" + address + "'");
                if (addresses.size() != i)
                    throw error(node, key + ".address", "either every instance has an 'address' or none has");
                addresses.add(address);
            } else if (!addresses.isEmpty()) {
                throw error(node, key, "no 'address': either every instance has one or none has");
            }
        }

        private Backend backend(Map<String, NodeTuple> top) {
            if (!top.containsKey("backend")) return Backend.POSTGRES;
            Node b = top.get("backend").getValueNode();
            try {
                return Backend.parse(text(b, "backend"));
            } catch (IllegalArgumentException e) {
                throw error(b, "backend", e.getMessage());
            }
        }

        private Backend sameBackend(SequenceNode seq, List<String> urls) {
            Backend first = Backend.ofTarget(urls.get(0));
            for (int i = 1; i < urls.size(); i++)
                if (Backend.ofTarget(urls.get(i)) != first)
                    throw error(seq.getValue().get(i), "instances[" + i + "].jdbc", "all instances use one backend:"
                            + " instance 0 is " + first + ", this one " + Backend.ofTarget(urls.get(i)));
            return first;
        }

        private Map<String, NodeTuple> mapping(Node node, String what) {
            if (!(node instanceof MappingNode m)) throw error(node, what.equals("the file") ? "" : what,
                    "expected keys and values (key: value)");
            Map<String, NodeTuple> out = new LinkedHashMap<>();
            for (NodeTuple t : m.getValue()) {
                String key = t.getKeyNode() instanceof ScalarNode s ? s.getValue() : "?";
                if (what.equals("the file") && !KEYS.containsKey(key)) {
                    String nearest = KEYS.keySet().stream().min((x, y) -> Gyro.editDistance(key, x)
                            - Gyro.editDistance(key, y)).orElseThrow();
                    throw error(t.getKeyNode(), key, "unknown key" + (Gyro.editDistance(key, nearest) <= 2
                            ? "; did you mean '" + nearest + "' (" + KEYS.get(nearest) + ")?"
                            : "; the keys are " + String.join(", ", KEYS.keySet())));
                }
                NodeTuple before = out.put(key, t);
                if (before != null)
                    throw error(t.getKeyNode(), (what.equals("the file") ? "" : what + ".") + key, "given twice (first on"
                            + " line " + (before.getKeyNode().getStartMark().getLine() + 1) + ")");
            }
            return out;
        }

        private Node required(Node root, Map<String, NodeTuple> top, String key) {
            if (!top.containsKey(key)) throw error(root, key, "missing: " + KEYS.get(key));
            return top.get(key).getValueNode();
        }

        private String text(Node node, String key) {
            if (!(node instanceof ScalarNode s) || s.getValue().isBlank())
                throw error(node, key, "expected a value, not " + (node instanceof ScalarNode ? "nothing" : "a list or map"));
            return s.getValue().strip();
        }

        private long integer(Node node, String key) {
            String t = text(node, key);
            try {
                return Long.parseLong(t);
            } catch (NumberFormatException e) {
                throw error(node, key, "expected an integer, got '" + t + "'");
            }
        }

        private int positive(Node node, String key) {
            return within(node, key, 1, 1_000);
        }

        private int within(Node node, String key, int min, int max) {
            long v = integer(node, key);
            if (v < min || v > max) throw error(node, key, "expected a number from " + min + " to " + max + ", got " + v);
            return (int) v;
        }

        private boolean bool(Node node, String key) {
            String t = text(node, key).toLowerCase(Locale.ROOT);
            if (t.equals("true") || t.equals("yes") || t.equals("on")) return true;
            if (t.equals("false") || t.equals("no") || t.equals("off")) return false;
            throw error(node, key, "expected true or false, got '" + t + "'");
        }

        private Path relative(String path) {
            Path p = Path.of(path.startsWith("~/") ? System.getProperty("user.home") + path.substring(1) : path);
            Path folder = file.toAbsolutePath().getParent();
            return p.isAbsolute() || folder == null ? p : folder.resolve(p).normalize();
        }

        private IllegalArgumentException error(Node node, String key, String problem) {
            String line = node == null ? "" : ":" + (node.getStartMark().getLine() + 1);
            return new IllegalArgumentException(file + line + ": " + (key.isEmpty() ? "" : key + ": ") + problem);
        }
    }
}
