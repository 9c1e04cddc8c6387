package dev.gyro.runtime;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The instance's HTTP endpoint (docs/decisions/18-watching.md), on the JDK's own server: {@code /metrics}
 * (Prometheus text), {@code /status.json} (this instance's Status document), {@code /ring.json} (every instance's,
 * asked over the cluster's transport) and {@code /} (the live view, one self-contained page that reads
 * {@code /ring.json} every second). Read-only: nothing here changes the instance. It is plaintext, so by default it
 * listens on the loopback interface only.
 */
final class HttpEndpoint implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(HttpEndpoint.class);
    private static final String PROMETHEUS = "text/plain; version=0.0.4; charset=utf-8";

    private final HttpServer server;
    private final ExecutorService threads;
    private final byte[] page;

    HttpEndpoint(int self, String hostPort, Supplier<String> metrics, Supplier<byte[]> status, Supplier<byte[]> ring)
            throws IOException {
        int colon = hostPort.lastIndexOf(':');
        String host = hostPort.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
        int port = Integer.parseInt(hostPort.substring(colon + 1));
        try (InputStream in = HttpEndpoint.class.getResourceAsStream("live-view.html")) {
            if (in == null) throw new IllegalStateException("live-view.html is missing from gyro-runtime's jar");
            page = in.readAllBytes();
        }
        try {
            server = HttpServer.create(new InetSocketAddress(host, port), 16);
        } catch (IOException e) {
            throw new IOException("cannot serve HTTP on " + hostPort + ": " + e.getMessage(), e);
        }
        // Two threads: /ring.json waits up to a second for the other instances, /metrics should not wait behind it.
        threads = Threads.fixed(self, "http", 2);
        server.setExecutor(threads);
        server.createContext("/metrics", x -> send(x, PROMETHEUS, metrics.get().getBytes(StandardCharsets.UTF_8)));
        server.createContext("/status.json", x -> send(x, "application/json", status.get()));
        server.createContext("/ring.json", x -> send(x, "application/json", ring.get()));
        server.createContext("/", x -> {
            if (!x.getRequestURI().getPath().equals("/")) {
                x.sendResponseHeaders(404, -1);
                x.close();
                return;
            }
            send(x, "text/html; charset=utf-8", page);
        });
        server.start();
    }

    /** Where it is reached: http://HOST:PORT (the port it got when asked for port 0). */
    String url() {
        InetSocketAddress a = server.getAddress();
        String host = a.getHostString();
        return "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + a.getPort();
    }

    private static void send(HttpExchange x, String type, byte[] body) throws IOException {
        try (x; OutputStream out = x.getResponseBody()) {
            if (!x.getRequestMethod().equals("GET") && !x.getRequestMethod().equals("HEAD")) {
                x.sendResponseHeaders(405, -1);
                return;
            }
            x.getResponseHeaders().set("Content-Type", type);
            x.getResponseHeaders().set("Cache-Control", "no-store");
            x.sendResponseHeaders(200, body.length);
            out.write(body);
        } catch (RuntimeException e) {
            log.warn("HTTP {} failed: {}", x.getRequestURI(), e.toString());
            throw e;
        }
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
        try {
            threads.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
