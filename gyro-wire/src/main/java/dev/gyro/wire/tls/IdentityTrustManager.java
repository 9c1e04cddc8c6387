package dev.gyro.wire.tls;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;

/**
 * Trusts a peer only if its certificate chain leads to the cluster's CA (the JDK's PKIX checks, host names included
 * where the connection asks for them) AND the certificate names one identity of that cluster. For ports whose protocol
 * is not Gyro's own, so that Gyro cannot look at the caller's identity per message: the group log
 * (docs/decisions/32-group-log-tls.md) accepts the replicas of its own ring position only.
 */
public final class IdentityTrustManager extends X509ExtendedTrustManager {

    private final X509ExtendedTrustManager pkix;
    private final String identity;
    private final String cluster;

    private IdentityTrustManager(X509ExtendedTrustManager pkix, String identity, String cluster) {
        this.pkix = pkix;
        this.identity = identity;
        this.cluster = cluster;
    }

    /** Trusts certificates signed by {@code ca} whose subject is {@code identity} of {@code cluster}. */
    public static IdentityTrustManager of(X509Certificate ca, String identity, String cluster) {
        try {
            KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(null, null);
            store.setCertificateEntry("gyro-cluster-ca", ca);
            TrustManagerFactory f = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            f.init(store);
            for (TrustManager t : f.getTrustManagers())
                if (t instanceof X509ExtendedTrustManager x) return new IdentityTrustManager(x, identity, cluster);
            throw new IllegalStateException("the JDK offers no X509ExtendedTrustManager");
        } catch (GeneralSecurityException | java.io.IOException e) {
            throw new IllegalStateException("cannot make a trust manager for the cluster CA: " + e.getMessage(), e);
        }
    }

    private void requireIdentity(X509Certificate[] chain) throws CertificateException {
        X509Certificate peer = chain == null || chain.length == 0 ? null : chain[0];
        if (peer == null) throw new CertificateException("no certificate");
        String who = Certificates.identityOf(peer);
        String of = Certificates.clusterOf(peer);
        if (!identity.equals(who) || !cluster.equals(of))
            throw new CertificateException("the certificate of " + who + " of cluster " + of + " is refused here: only "
                    + identity + " of cluster " + cluster + " may connect");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        pkix.checkClientTrusted(chain, authType, socket);
        requireIdentity(chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        pkix.checkServerTrusted(chain, authType, socket);
        requireIdentity(chain);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        pkix.checkClientTrusted(chain, authType, engine);
        requireIdentity(chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        pkix.checkServerTrusted(chain, authType, engine);
        requireIdentity(chain);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        pkix.checkClientTrusted(chain, authType);
        requireIdentity(chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        pkix.checkServerTrusted(chain, authType);
        requireIdentity(chain);
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return pkix.getAcceptedIssuers();
    }
}
