package io.rdmakv.client;

import io.rdmakv.protocol.SharedSecret;
import io.rdmakv.protocol.auth.Login;
import io.rdmakv.transport.tls.TlsSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Builds a {@link KvClient}; obtained from {@link KvClient#builder()}. Every setter validates at once, so a bad
 * setting fails where it is made, with its name in the message. Defaults run against a local node out of the box.
 *
 * <pre>{@code
 * try (KvClient client = KvClient.builder().server("127.0.0.1:7400").build())
 * {
 *     client.put(key, value);
 * }
 * }</pre>
 */
public final class KvClientBuilder
{
    private static final Logger LOG = LoggerFactory.getLogger(KvClientBuilder.class);
    /** The server's default control port. */
    public static final int DEFAULT_CONTROL_PORT = 7400;
    /** Keys per node whose location a client remembers by default: 131,072 (4 MiB per node). */
    public static final int DEFAULT_LOCATION_CACHE_ENTRIES = 1 << 17;
    /** The most a client may be asked to remember per node. */
    public static final int MAX_LOCATION_CACHE_ENTRIES = 1 << 24;
    /**
     * The common transport setting for the endpoints one worker holds at once ({@link #transportProperty}), on a
     * transport whose workers pin a buffer slot per endpoint (verbs); other transports ignore it.
     */
    public static final String ENDPOINT_SLOTS = "endpointSlots";
    /**
     * {@value #ENDPOINT_SLOTS} of a client unless {@link #transportProperty} sets it (or the transport's own setting):
     * a client opens one data connection per server node, so it takes one slot per node of the cluster map and a
     * spare, at least 4; at the default depths each slot pins ~5 MiB (a transport's own default is sized for a
     * server's clients: 16 on verbs, ~80 MiB per worker).
     */
    public static final int DEFAULT_ENDPOINT_SLOTS = 4;
    /** Async requests that may wait for an in-flight slot by default ({@link #maxQueuedRequests(int)}). */
    public static final int DEFAULT_MAX_QUEUED_REQUESTS = 4096;
    /**
     * Caller lanes per node by default ({@link #callerLanes(int)}); the system property
     * {@code rdmakv.client.callerLanes} overrides it (a benchmark's before and after).
     */
    public static final int DEFAULT_CALLER_LANES = Integer.getInteger("rdmakv.client.callerLanes", 16);
    /** The most {@link #callerLanes(int)} accepts. */
    public static final int MAX_CALLER_LANES = 1024;
    /** The most {@link #maxQueuedRequests(int)} accepts. */
    public static final int MAX_QUEUED_REQUESTS = 1 << 20;

    private final List<HostPort> seeds = new ArrayList<>();
    private String transport = "auto";
    private Duration connectTimeout = Duration.ofSeconds(5);
    private Duration refreshHandshakeTimeout = Duration.ofMillis(500);
    private Duration requestTimeout = Duration.ofSeconds(5);
    private byte[] credential = new byte[0];
    private Login login;
    private GetMode getMode = GetMode.AUTO;
    private int readRetries = 3;
    private int maxRedirects = 3;
    private int maxInFlight = 64;
    private int maxQueuedRequests = DEFAULT_MAX_QUEUED_REQUESTS;
    private int oneSidedBufferBytes = 32 * 1024;
    private int locationCacheEntries = DEFAULT_LOCATION_CACHE_ENTRIES;
    private final Map<String, String> transportProperties = new TreeMap<>();
    private boolean callerDrivenProgress = true;
    private int callerLanes = DEFAULT_CALLER_LANES;

    KvClientBuilder()
    {
    }

    /**
     * Add a seed node by {@code host:port} (its control-plane port).
     *
     * @param hostPort e.g. {@code 127.0.0.1:7400} or {@code [::1]:7400}.
     * @return this builder.
     * @throws IllegalArgumentException when the text is not {@code host:port}.
     */
    public KvClientBuilder server(final String hostPort)
    {
        seeds.add(HostPort.parse(hostPort));
        return this;
    }

    /**
     * Add a seed node.
     *
     * @param hostPort its control-plane address.
     * @return this builder.
     */
    public KvClientBuilder server(final HostPort hostPort)
    {
        seeds.add(Objects.requireNonNull(hostPort, "server"));
        return this;
    }

    /**
     * Add several seed nodes: the first that answers the handshake gives the cluster map.
     *
     * @param hostPorts {@code host:port} each.
     * @return this builder.
     */
    public KvClientBuilder servers(final List<String> hostPorts)
    {
        hostPorts.forEach(this::server);
        return this;
    }

    /**
     * The transport for data connections.
     *
     * @param name {@code auto} (default: the best available), {@code tcp} or {@code verbs}.
     * @return this builder.
     */
    public KvClientBuilder transport(final String name)
    {
        final String t = Objects.requireNonNull(name, "transport").trim();
        if (t.isEmpty())
        {
            throw new IllegalArgumentException("transport must not be empty (use auto, tcp or verbs)");
        }
        this.transport = t;
        return this;
    }

    /**
     * Bound on one node's handshake while the cluster map is refreshed (after a redirect, a failover, a dead node);
     * default 500 ms, never more than {@link #connectTimeout}. Short because a stopped node accepts a connection and
     * never answers, and the refresh asks the next node only after it; raise it where a healthy handshake can take
     * longer (an emulated or heavily oversubscribed machine).
     *
     * @param timeout positive.
     * @return this builder.
     */
    public KvClientBuilder mapRefreshHandshakeTimeout(final Duration timeout)
    {
        this.refreshHandshakeTimeout = positive(timeout, "mapRefreshHandshakeTimeout");
        return this;
    }

    /**
     * Bound on the handshake and on opening a data connection (default 5 s).
     *
     * @param timeout positive.
     * @return this builder.
     */
    public KvClientBuilder connectTimeout(final Duration timeout)
    {
        this.connectTimeout = positive(timeout, "connectTimeout");
        return this;
    }

    /**
     * Bound on one request, from the call until its answer, time waiting in the client's queue included
     * (default 5 s).
     *
     * @param timeout positive.
     * @return this builder.
     */
    public KvClientBuilder requestTimeout(final Duration timeout)
    {
        this.requestTimeout = positive(timeout, "requestTimeout");
        return this;
    }

    /**
     * The shared secret the server was configured with ({@code auth.secret}); prefer {@link #secretFile(Path)} for a
     * secret kept out of code and command lines.
     *
     * @param secret the secret's bytes (copied).
     * @return this builder.
     */
    public KvClientBuilder secret(final byte[] secret)
    {
        this.credential = Objects.requireNonNull(secret, "secret").clone();
        return this;
    }

    /**
     * The shared secret the server was configured with, as text (UTF-8).
     *
     * @param secret the secret.
     * @return this builder.
     */
    public KvClientBuilder secret(final String secret)
    {
        return secret(Objects.requireNonNull(secret, "secret").getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The shared secret as the first line of {@code file}, read now ({@link SharedSecret}; a file that group or others
     * may read is used, with a WARN).
     *
     * @param file the secret file.
     * @return this builder.
     * @throws IllegalArgumentException when the file cannot be read or its first line is empty.
     */
    public KvClientBuilder secretFile(final Path file)
    {
        return secret(SharedSecret.read(Objects.requireNonNull(file, "file"), LOG::warn));
    }

    /**
     * Log in as {@code user} of the nodes' users file ({@code auth.usersFile}) with SCRAM-SHA-256: the password never
     * travels, and the node proves it holds the user's key. The user's role and key prefixes decide what the node
     * serves (a refusal is a {@link KvServerException} with {@link KvError#FORBIDDEN}). Prefer
     * {@link #user(String, Path)}, which keeps the password out of code.
     *
     * @param user     the user's name.
     * @param password its password (copied).
     * @return this builder.
     */
    public KvClientBuilder user(final String user, final char[] password)
    {
        this.login = new Login(user, password);
        return this;
    }

    /**
     * As {@link #user(String, char[])} with the password the first line of {@code passwordFile}, read now (a file
     * group or others may read is used, with a WARN).
     *
     * @param user         the user's name.
     * @param passwordFile the password file.
     * @return this builder.
     * @throws IllegalArgumentException when the file cannot be read or its first line is empty.
     */
    public KvClientBuilder user(final String user, final Path passwordFile)
    {
        this.login = Login.resolve(Objects.requireNonNull(user, "user"), Objects.requireNonNull(passwordFile,
            "passwordFile"), name -> null, LOG::warn);
        return this;
    }

    /**
     * A login made elsewhere (the launcher's {@code --user} and {@code --password-file} / {@code RDMAKV_PASSWORD}),
     * or null for none.
     *
     * @param login the login.
     * @return this builder.
     */
    public KvClientBuilder login(final Login login)
    {
        this.login = login;
        return this;
    }

    /**
     * TLS 1.3 to the nodes' control ports and tcp data ports ({@code docs/security.md}): the CA that signs the
     * nodes' certificates and, for a node with {@code tls.clientAuth}, this client's certificate and key (PEM files,
     * read when the client connects). With TLS on, the client offers no verbs (RDMA traffic is not encrypted) and
     * opens no caller lanes. All three null: plaintext (the default).
     *
     * @param caFile   the CA certificates that sign the nodes' (null: the JDK's default CAs, with a certificate).
     * @param certFile this client's certificate chain, or null.
     * @param keyFile  its private key (PKCS#8), with {@code certFile}.
     * @return this builder.
     * @throws IllegalArgumentException for a certificate without its key or the reverse.
     */
    public KvClientBuilder tls(final Path caFile, final Path certFile, final Path keyFile)
    {
        final TlsSettings tls = TlsSettings.of(certFile, keyFile, caFile, TlsSettings.Auth.NONE);
        for (final String name : List.of(TlsSettings.CERT_FILE, TlsSettings.KEY_FILE, TlsSettings.CA_FILE,
            TlsSettings.CLIENT_AUTH))
        {
            transportProperties.remove(name);
        }
        transportProperties.putAll(tls.properties());
        return this;
    }

    /**
     * Override how GETs are served; tests use {@link GetMode#ONE_SIDED} over TCP to exercise the protocol.
     *
     * @param mode default {@link GetMode#AUTO}.
     * @return this builder.
     */
    public KvClientBuilder getMode(final GetMode mode)
    {
        this.getMode = Objects.requireNonNull(mode, "getMode");
        return this;
    }

    /**
     * Torn one-sided reads retried before an RPC GET (default 3).
     *
     * @param retries 0..1000.
     * @return this builder.
     */
    public KvClientBuilder readRetries(final int retries)
    {
        this.readRetries = range(retries, 0, 1000, "readRetries");
        return this;
    }

    /**
     * WRONG_NODE redirects one request follows before it fails (default 3).
     *
     * @param redirects 0..100.
     * @return this builder.
     */
    public KvClientBuilder maxRedirects(final int redirects)
    {
        this.maxRedirects = range(redirects, 0, 100, "maxRedirects");
        return this;
    }

    /**
     * Requests outstanding at once over the whole client (default 64). Beyond it a synchronous call waits for a free
     * one (within its timeout) and an asynchronous one waits in the client's queue ({@link #maxQueuedRequests}).
     *
     * @param requests 1..65,536.
     * @return this builder.
     */
    public KvClientBuilder maxInFlight(final int requests)
    {
        this.maxInFlight = range(requests, 1, 65_536, "maxInFlight");
        return this;
    }

    /**
     * Asynchronous requests that may wait for an in-flight slot in the client's queue (default
     * {@value #DEFAULT_MAX_QUEUED_REQUESTS}). An async call never blocks its caller: when every slot is busy it
     * queues, and when the queue is full too its future fails at once with {@link KvBackPressureException}. A queued
     * request's timeout counts from the call. 0 turns the queue off (busy slots mean an immediate back-pressure
     * failure). Synchronous calls do not use the queue.
     *
     * @param requests 0..{@value #MAX_QUEUED_REQUESTS}.
     * @return this builder.
     */
    public KvClientBuilder maxQueuedRequests(final int requests)
    {
        this.maxQueuedRequests = range(requests, 0, MAX_QUEUED_REQUESTS, "maxQueuedRequests");
        return this;
    }

    /**
     * Bytes of the read buffer each in-flight GET keeps for a value extent (default 32 KiB, a multiple of 64).
     * Values whose extent is larger are fetched by RPC; memory is {@code maxInFlight} times this, registered once.
     *
     * @param bytes 64 B..2 MiB.
     * @return this builder.
     */
    public KvClientBuilder oneSidedBufferBytes(final int bytes)
    {
        range(bytes, 64, 2 * 1024 * 1024, "oneSidedBufferBytes");
        if ((bytes & 63) != 0)
        {
            throw new IllegalArgumentException("oneSidedBufferBytes must be a multiple of 64, got " + bytes);
        }
        this.oneSidedBufferBytes = bytes;
        return this;
    }

    /**
     * Keys per node whose value location the client remembers (default {@value #DEFAULT_LOCATION_CACHE_ENTRIES},
     * rounded up to a power of two; 32 bytes each; 0 turns the cache off). A one-sided GET of a remembered key reads
     * the value's extent alone, one round trip instead of two, and checks key, version, CRC and the extent's LIVE
     * mark, so a stale location only costs the full lookup, never a stale value. Locations are learnt from verified
     * one-sided GETs and from this client's own PUT answers.
     *
     * @param entries 0..{@value #MAX_LOCATION_CACHE_ENTRIES}.
     * @return this builder.
     */
    public KvClientBuilder locationCacheEntries(final int entries)
    {
        this.locationCacheEntries = range(entries, 0, MAX_LOCATION_CACHE_ENTRIES, "locationCacheEntries");
        return this;
    }

    /**
     * A transport setting, passed to the transport when it opens: transport-specific ones (e.g.
     * {@code verbs.device=rxe0}, {@code tcp.ioThreads=1}) and the common {@code maxInflightPerEndpoint},
     * {@code maxPendingPerEndpoint}, {@code maxMessageBytes} and {@value #ENDPOINT_SLOTS}. On a transport whose
     * workers pin a buffer slot per endpoint (verbs) a client takes one slot per node of the cluster map plus a
     * spare, at least {@value #DEFAULT_ENDPOINT_SLOTS}, unless {@value #ENDPOINT_SLOTS} (or the transport's own
     * setting, e.g. {@code verbs.maxEndpoints}) is set here.
     *
     * @param name  the setting's name.
     * @param value its value as text.
     * @return this builder.
     */
    public KvClientBuilder transportProperty(final String name, final String value)
    {
        transportProperties.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
        return this;
    }

    /**
     * Caller-driven progress ({@code progress.callerDriven}, default on): a synchronous call, while it waits for its
     * answer, polls the transport's worker itself (as a UCX application calls {@code ucp_worker_progress}), briefly
     * busy, then yielding, then parked, so a fast answer is taken and handed back on the calling thread with no
     * wake-up of the client's progress thread and none of the caller. It costs the waiting thread's CPU while it
     * spins; off, every answer is handed over by the progress thread, which then wakes the caller. Only workers that
     * are polled (verbs, shm) can be driven this way; over tcp the setting changes nothing. An asynchronous call
     * never blocks, but a thread that then blocks on its future ({@code get}, {@code join}, also on a dependent
     * stage) drives progress the same way while it waits.
     *
     * @param enabled default {@code true}.
     * @return this builder.
     */
    public KvClientBuilder callerDrivenProgress(final boolean enabled)
    {
        this.callerDrivenProgress = enabled;
        return this;
    }

    /**
     * Caller lanes per node ({@code callerLanes}, default 16): over a transport that
     * offers them (tcp), a synchronous call made while other requests are in flight borrows a connection of its own
     * to the key's node, writes its request
     * and reads the answer itself, woken by the kernel when the answer lands, as a thread of a Jedis pool does; over
     * the node's one shared connection the client's event loop reads every answer and wakes its caller, two wake-ups
     * per request instead of one, which is what many threads pay for on few cores. Lanes are opened on demand (a
     * control-plane handshake and an ATTACH each) up to this number per node and kept; a call that finds none free
     * takes the shared connection, so no call ever waits for a lane. Asynchronous calls always take the shared
     * connection. 0 turns lanes off.
     *
     * @param perNode 0 to {@value #MAX_CALLER_LANES}.
     * @return this builder.
     */
    public KvClientBuilder callerLanes(final int perNode)
    {
        if (perNode < 0 || perNode > MAX_CALLER_LANES)
        {
            throw new IllegalArgumentException("callerLanes must be 0.." + MAX_CALLER_LANES + ", got " + perNode);
        }
        this.callerLanes = perNode;
        return this;
    }

    /**
     * The settings as they stand, without connecting.
     *
     * @return the immutable settings.
     * @throws IllegalArgumentException when no server was given.
     */
    public KvClientConfig config()
    {
        if (seeds.isEmpty())
        {
            throw new IllegalArgumentException("no server given: call server(\"host:port\") at least once");
        }
        return new KvClientConfig(seeds, transport, connectTimeout, requestTimeout, credential, getMode, readRetries,
            maxRedirects, maxInFlight, maxQueuedRequests, oneSidedBufferBytes, locationCacheEntries, transportProperties,
            callerDrivenProgress, callerLanes, login, refreshHandshakeTimeout);
    }

    /**
     * Connect: handshake with the first seed that answers, open the transport and a data connection to that node.
     *
     * @return the connected client; close it when done.
     * @throws KvException when no seed answers ({@link KvConnectionException}, {@link KvTimeoutException}), the
     *                     node refuses the credential ({@link KvAuthenticationException}), or the transport cannot
     *                     open.
     */
    public KvClient build()
    {
        return KvClient.connect(config());
    }

    private static Duration positive(final Duration value, final String name)
    {
        Objects.requireNonNull(value, name);
        if (value.isNegative() || value.isZero())
        {
            throw new IllegalArgumentException(name + " must be positive, got " + value);
        }
        return value;
    }

    private static int range(final int value, final int min, final int max, final String name)
    {
        if (value < min || value > max)
        {
            throw new IllegalArgumentException(name + " must be " + min + ".." + max + ", got " + value);
        }
        return value;
    }
}
