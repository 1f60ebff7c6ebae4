package io.rdmakv.server.config;

import io.rdmakv.transport.tls.TlsSettings;

import java.nio.file.Path;
import java.util.List;

/**
 * Settings of a node's credential and TLS ({@code auth.secret}, {@code auth.secretFile}, {@code tls.*}; the TLS names
 * are the transport's, {@link TlsSettings}, which reads them). Each is declared once here; see {@link Setting}.
 */
public final class SecurityKeys
{
    public static final Setting<String> SECRET = Setting.text("auth.secret", "string", null, t -> t,
        "shared secret a client must present in HELLO; none = open. On the command line it shows in ps: prefer " +
            "auth.secretFile (flag --secret-file) or the RDMAKV_SECRET environment variable");

    public static final Setting<Path> SECRET_FILE = Setting.path("auth.secretFile", null, "file whose first line is " +
        "auth.secret (flag --secret-file); a file group or others may read gets a WARN; not together with " +
        "auth.secret");

    public static final Setting<Path> USERS_FILE = Setting.path("auth.usersFile", null, "users and roles (read, " +
        "readwrite, admin; optionally limited to key prefixes) who log in with SCRAM-SHA-256; written by `rdmakv " +
        "user add` with mode 600; re-read when it changes. Beside auth.secret, which keeps full access " +
        "(docs/security.md)");

    public static final Setting<Path> TLS_CERT_FILE = Setting.path(TlsSettings.CERT_FILE, null, "this node's " +
        "certificate chain (PEM): TLS 1.3 on the control port and the tcp data port; with tls.keyFile; none = " +
        "plaintext (docs/security.md)");

    public static final Setting<Path> TLS_KEY_FILE = Setting.path(TlsSettings.KEY_FILE, null,
        "the private key of tls.certFile (PEM, PKCS#8)");

    public static final Setting<Path> TLS_CA_FILE = Setting.path(TlsSettings.CA_FILE, null,
        "CA certificates (PEM) that sign the clients' certificates, for tls.clientAuth");

    public static final Setting<TlsSettings.Auth> TLS_CLIENT_AUTH = Setting.choice(TlsSettings.CLIENT_AUTH, "none",
        "none | optional | required", TlsSettings.Auth::parse, "whether the node asks a client for a certificate " +
            "signed by tls.caFile");

    /** true: auto (windows where the main transport has them); false: off. */
    public static final Setting<Boolean> MEMORY_WINDOWS = Setting.choice("auth.memoryWindows", "auto", "auto | off",
        SecurityKeys::memoryWindows, "each data session reads the pool one-sided through a memory window of its own, " +
            "closed when the session ends or its user is removed or changed, instead of the pool's key (valid for " +
            "anyone, for the node's life). auto: where the main transport has windows (verbs on a device with type " +
            "2 windows; never tcp or shm); off: every verbs session gets the pool's key (docs/security.md)");

    /** In the order {@code --list-settings} shows them. */
    static final List<Setting<?>> ALL = List.of(SECRET, SECRET_FILE, USERS_FILE, TLS_CERT_FILE, TLS_KEY_FILE, TLS_CA_FILE,
        TLS_CLIENT_AUTH, MEMORY_WINDOWS);

    private static Boolean memoryWindows(final String value)
    {
        return switch (value.trim().toLowerCase(java.util.Locale.ROOT))
        {
            case "auto" -> Boolean.TRUE;
            case "off" -> Boolean.FALSE;
            default -> throw new IllegalArgumentException("must be auto or off");
        };
    }

    private SecurityKeys()
    {
    }
}
