package dev.gyro.cli;

import dev.gyro.wire.Transport;
import dev.gyro.wire.tls.TlsFiles;
import picocli.CommandLine.Option;

import java.nio.file.Path;

/**
 * How a command talks to instances: mutual TLS with the cluster's certificates ({@code --tls-dir}, the folder
 * {@code gyro cluster start} or {@code gyro certs} made), or plaintext only when asked for ({@code --insecure}, with a
 * warning). Neither is an error: Gyro is secure by default (docs/decisions/13-secure-by-default.md).
 */
final class TransportOptions {

    @Option(names = "--tls-dir", paramLabel = "DIR", description = "the cluster's certificates (ca.crt, and NAME.crt/NAME.key"
            + " for this side: instance-I or client), as gyro cluster start or gyro certs writes them")
    Path tlsDir;

    @Option(names = "--insecure", description = "plaintext, no authentication: anyone who reaches the port can send"
            + " requests and peer messages (for trying Gyro on one machine only)")
    boolean insecure;

    /**
     * The transport for {@code identity}.
     *
     * @throws IllegalArgumentException when neither or both options are given, or a certificate is missing
     */
    Transport transport(String identity) {
        if (insecure && tlsDir != null) throw new IllegalArgumentException("give --tls-dir or --insecure, not both");
        if (tlsDir != null) return Transport.mutualTls(new TlsFiles(tlsDir.toAbsolutePath()), identity);
        if (insecure) {
            System.err.println("gyro: WARNING: --insecure: plaintext without authentication; anyone who can reach the"
                    + " instances' ports can send them requests and peer messages");
            return Transport.insecure();
        }
        throw new IllegalArgumentException("give the cluster's certificates with --tls-dir DIR (gyro cluster start"
                + " writes them in its --dir under tls/; gyro certs makes them for instances of your own), or --insecure"
                + " for plaintext");
    }
}
