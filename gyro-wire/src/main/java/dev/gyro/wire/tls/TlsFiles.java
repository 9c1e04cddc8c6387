package dev.gyro.wire.tls;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A folder of a cluster's certificates, as {@link Certificates#createCluster} writes it: {@code ca.crt}, and per
 * identity {@code NAME.crt} and {@code NAME.key}.
 */
public record TlsFiles(Path dir) {

    public static final String CA_CERT = "ca.crt";

    public Path ca() {
        return dir.resolve(CA_CERT);
    }

    public Path certificate(String identity) {
        return dir.resolve(identity + ".crt");
    }

    public Path key(String identity) {
        return dir.resolve(identity + ".key");
    }

    /** @throws IllegalArgumentException naming every file {@code identity} needs that is missing */
    public void require(String identity) {
        List<String> missing = new ArrayList<>();
        for (Path p : List.of(ca(), certificate(identity), key(identity)))
            if (!Files.isReadable(p)) missing.add(p.getFileName().toString());
        if (!missing.isEmpty())
            throw new IllegalArgumentException("TLS folder " + dir + " lacks " + String.join(", ", missing) + " for "
                    + identity + " (gyro cluster start makes them; gyro certs --dir DIR --ring ... for instances"
                    + " of your own)");
    }
}
