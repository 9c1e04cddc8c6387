package dev.gyro.wire.tls;

import org.bouncycastle.asn1.x500.RDN;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x500.style.IETFUtils;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import java.io.IOException;
import java.io.Reader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A cluster's own certificate authority and the certificates it signs, for mutual TLS between instances and clients
 * (docs/decisions/13-secure-by-default.md). Made with Bouncy Castle's certificate builder and the JDK's key generator
 * and signatures; nothing here is cryptography of our own.
 *
 * <p>A folder of a cluster's certificates ({@link TlsFiles}) holds {@code ca.crt} (and {@code ca.key}, to sign more),
 * and per identity {@code NAME.crt} and {@code NAME.key} (PKCS#8, readable by the owner only). Identities:
 * {@code instance-I} for instance I of the ring, {@code client} for clients. Every certificate's subject is
 * {@code CN=<identity>, O=gyro cluster <cluster id>}, so an instance knows its cluster and its peers' ids from the
 * certificates alone.
 */
public final class Certificates {

    /** The subject organisation prefix; the cluster id follows it. */
    static final String ORGANISATION = "gyro cluster ";
    private static final Duration VALIDITY = Duration.ofDays(3650);
    private static final SecureRandom RANDOM = new SecureRandom();

    private Certificates() {}

    /** The identity of instance {@code id} in certificates and messages. */
    public static String instanceIdentity(int id) {
        return "instance-" + id;
    }

    /** The identity of clients. */
    public static final String CLIENT = "client";

    /**
     * Creates a new cluster CA in {@code dir} and a certificate for every identity: instances 0..n-1 (valid for the
     * given host names and addresses, loopback always included) and clients.
     *
     * @return the folder's files
     */
    public static TlsFiles createCluster(Path dir, String clusterId, int instances, Collection<String> hosts) {
        try {
            Files.createDirectories(dir);
            KeyPair ca = keyPair();
            X500Name caName = name("ca", clusterId);
            Instant now = Instant.now();
            JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(caName, serial(),
                    Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(VALIDITY)), caName, ca.getPublic());
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
            X509Certificate caCert = sign(b, ca.getPrivate());
            writePem(dir.resolve(TlsFiles.CA_CERT), caCert);
            writeKey(dir.resolve("ca.key"), ca.getPrivate());
            for (int i = 0; i < instances; i++)
                issue(dir, instanceIdentity(i), clusterId, caCert, ca.getPrivate(), hosts);
            issue(dir, CLIENT, clusterId, caCert, ca.getPrivate(), List.of());
            return new TlsFiles(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write certificates in " + dir, e);
        } catch (GeneralSecurityException | OperatorCreationException e) {
            throw new IllegalStateException("cannot create certificates: " + e.getMessage(), e);
        }
    }

    /**
     * Issues one more certificate with the CA in {@code dir} (its {@code ca.key} must be there), for example a
     * second client's or a certificate for an impostor in a test.
     */
    public static void issue(Path dir, String identity, Collection<String> hosts) {
        try (Reader certIn = Files.newBufferedReader(dir.resolve(TlsFiles.CA_CERT));
             Reader keyIn = Files.newBufferedReader(dir.resolve("ca.key"));
             PEMParser certs = new PEMParser(certIn); PEMParser keys = new PEMParser(keyIn)) {
            X509Certificate ca = new JcaX509CertificateConverter().getCertificate((X509CertificateHolder) certs.readObject());
            PrivateKey key = new JcaPEMKeyConverter().getPrivateKey((PrivateKeyInfo) keys.readObject());
            issue(dir, identity, clusterOf(ca), ca, key, hosts);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot issue a certificate in " + dir, e);
        } catch (GeneralSecurityException | OperatorCreationException e) {
            throw new IllegalStateException("cannot issue a certificate: " + e.getMessage(), e);
        }
    }

    private static void issue(Path dir, String identity, String clusterId, X509Certificate ca, PrivateKey caKey,
                              Collection<String> hosts) throws IOException, GeneralSecurityException,
            OperatorCreationException {
        KeyPair kp = keyPair();
        Instant now = Instant.now();
        JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(ca, serial(),
                Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(VALIDITY)), name(identity, clusterId),
                kp.getPublic());
        b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
        b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
        b.addExtension(Extension.extendedKeyUsage, false,
                new ExtendedKeyUsage(new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}));
        Set<String> all = new LinkedHashSet<>(List.of("localhost", "127.0.0.1", "::1"));
        all.addAll(hosts);
        List<GeneralName> names = new ArrayList<>();
        for (String h : all)
            names.add(isAddress(h) ? new GeneralName(GeneralName.iPAddress, h) : new GeneralName(GeneralName.dNSName, h));
        b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names.toArray(GeneralName[]::new)));
        writePem(dir.resolve(identity + ".crt"), sign(b, caKey));
        writeKey(dir.resolve(identity + ".key"), kp.getPrivate());
    }

    /** The common name (the identity) of a certificate's subject. */
    public static String identityOf(X509Certificate cert) {
        return attribute(cert, BCStyle.CN);
    }

    /** The cluster id of a certificate's subject, or null if it is no Gyro certificate. */
    public static String clusterOf(X509Certificate cert) {
        String o = attribute(cert, BCStyle.O);
        return o != null && o.startsWith(ORGANISATION) ? o.substring(ORGANISATION.length()) : null;
    }

    /** Reads one PEM certificate. */
    public static X509Certificate read(Path pem) {
        try (Reader in = Files.newBufferedReader(pem); PEMParser p = new PEMParser(in)) {
            Object o = p.readObject();
            if (!(o instanceof X509CertificateHolder h))
                throw new IllegalArgumentException(pem + " holds no PEM certificate");
            return new JcaX509CertificateConverter().getCertificate(h);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read certificate " + pem, e);
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException(pem + ": " + e.getMessage(), e);
        }
    }

    private static String attribute(X509Certificate cert, org.bouncycastle.asn1.ASN1ObjectIdentifier type) {
        X500Name subject = X500Name.getInstance(cert.getSubjectX500Principal().getEncoded());
        RDN[] rdns = subject.getRDNs(type);
        return rdns.length == 0 ? null : IETFUtils.valueToString(rdns[0].getFirst().getValue());
    }

    private static X500Name name(String identity, String clusterId) {
        return new X500Name("CN=" + identity + ",O=" + ORGANISATION + clusterId);
    }

    private static boolean isAddress(String host) {
        return host.matches("[0-9.]+") || host.contains(":");
    }

    private static KeyPair keyPair() throws GeneralSecurityException {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
        return g.generateKeyPair();
    }

    private static BigInteger serial() {
        return new BigInteger(64, RANDOM).abs().add(BigInteger.ONE);
    }

    private static X509Certificate sign(JcaX509v3CertificateBuilder b, PrivateKey key)
            throws OperatorCreationException, GeneralSecurityException {
        return new JcaX509CertificateConverter().getCertificate(b.build(new JcaContentSignerBuilder("SHA256withECDSA")
                .build(key)));
    }

    private static void writePem(Path file, Object o) throws IOException {
        StringWriter s = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(s)) {
            w.writeObject(o);
        }
        Files.writeString(file, s.toString());
    }

    private static void writeKey(Path file, PrivateKey key) throws IOException {
        Files.deleteIfExists(file);
        Files.createFile(file);
        try {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        } catch (UnsupportedOperationException notPosix) {
            // not a POSIX file system: the folder's own permissions protect it
        }
        writePem(file, new JcaPKCS8Generator(key, null));
    }
}
