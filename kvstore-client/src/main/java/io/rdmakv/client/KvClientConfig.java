package io.rdmakv.client;

import io.rdmakv.protocol.auth.Login;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The settings of a {@link KvClient}, immutable; made by {@link KvClientBuilder}.
 *
 * @param seeds               control-plane addresses of one or more nodes; the first that answers gives the cluster map.
 * @param transport           {@code auto}, {@code tcp} or {@code verbs}.
 * @param connectTimeout      bound on the handshake and on opening a data connection.
 * @param requestTimeout      bound on one request, from the call until its answer.
 * @param credential          the shared secret sent in HELLO (empty when the server requires none).
 * @param getMode             how GETs are served.
 * @param readRetries         torn one-sided reads retried (buckets re-read) before falling back to an RPC GET.
 * @param maxRedirects        WRONG_NODE redirects followed by one request before it fails.
 * @param maxInFlight         requests outstanding at once over the whole client; beyond it sync callers wait and
 *                            async requests queue.
 * @param maxQueuedRequests   async requests that may wait in the client's queue for an in-flight slot; beyond it
 *                            an async call fails at once with {@link KvBackPressureException}.
 * @param oneSidedBufferBytes read buffer per in-flight GET for the value extent; larger extents are fetched by RPC.
 * @param locationCacheEntries keys per node whose value location is remembered for one-read GETs (0 = off).
 * @param transportProperties transport-specific settings passed through (e.g. {@code verbs.device}).
 * @param callerDrivenProgress whether a synchronous call drives the worker's progress itself while it waits
 *                            ({@code progress.callerDriven}; verbs only, tcp's I/O thread always drives its own).
 * @param callerLanes         caller lanes per node a transport with lanes (tcp) may open for synchronous requests
 *                            (0 = none: every request goes by the node's shared connection).
 * @param login               the user this client logs in as (SCRAM-SHA-256), or null: the credential only.
 * @param refreshHandshakeTimeout bound on one node's handshake while the cluster map is refreshed (at most
 *                            {@code connectTimeout}): short, because a stopped node accepts and never answers and the
 *                            refresh asks the next node only after it.
 */
public record KvClientConfig(
    List<HostPort> seeds,
    String transport,
    Duration connectTimeout,
    Duration requestTimeout,
    byte[] credential,
    GetMode getMode,
    int readRetries,
    int maxRedirects,
    int maxInFlight,
    int maxQueuedRequests,
    int oneSidedBufferBytes,
    int locationCacheEntries,
    Map<String, String> transportProperties,
    boolean callerDrivenProgress,
    int callerLanes,
    Login login,
    Duration refreshHandshakeTimeout)
{
    /**
     * Copies the collections and the credential, so the settings cannot change once made.
     *
     * @param seeds see {@link #seeds()}.
     * @param transport see {@link #transport()}.
     * @param connectTimeout see {@link #connectTimeout()}.
     * @param requestTimeout see {@link #requestTimeout()}.
     * @param credential see {@link #credential()}.
     * @param getMode see {@link #getMode()}.
     * @param readRetries see {@link #readRetries()}.
     * @param maxRedirects see {@link #maxRedirects()}.
     * @param maxInFlight see {@link #maxInFlight()}.
     * @param maxQueuedRequests see {@link #maxQueuedRequests()}.
     * @param oneSidedBufferBytes see {@link #oneSidedBufferBytes()}.
     * @param locationCacheEntries see {@link #locationCacheEntries()}.
     * @param transportProperties see {@link #transportProperties()}.
     * @param callerDrivenProgress see {@link #callerDrivenProgress()}.
     * @param callerLanes see {@link #callerLanes()}.
     * @param login see {@link #login()}.
     * @param refreshHandshakeTimeout see {@link #refreshHandshakeTimeout()}.
     */
    public KvClientConfig
    {
        seeds = List.copyOf(seeds);
        credential = credential.clone();
        transportProperties = Map.copyOf(transportProperties);
    }

    /**
     * The shared secret sent in HELLO.
     *
     * @return a copy (empty when none is set).
     */
    @Override
    public byte[] credential()
    {
        return credential.clone();
    }

    /** The settings in one line, the credential shown only as {@code set} or {@code none}. */
    @Override
    public String toString()
    {
        // Never print the credential.
        return "KvClientConfig{seeds=" + seeds + ", transport=" + transport + ", connectTimeout=" + connectTimeout +
            ", requestTimeout=" + requestTimeout + ", credential=" + (credential.length == 0 ? "none" : "set") +
            ", user=" + (login == null ? "none" : login.user()) +
            ", getMode=" + getMode + ", readRetries=" + readRetries + ", maxRedirects=" + maxRedirects +
            ", maxInFlight=" + maxInFlight + ", maxQueuedRequests=" + maxQueuedRequests + ", oneSidedBufferBytes=" + oneSidedBufferBytes +
            ", locationCacheEntries=" + locationCacheEntries + ", transportProperties=" + transportProperties +
            ", callerDrivenProgress=" + callerDrivenProgress + '}';
    }
}
