package io.rdmakv.cli.bench;

import io.rdmakv.protocol.auth.Login;

import io.rdmakv.client.ClientCounter;
import io.rdmakv.client.GetMode;
import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvClientBuilder;
import io.rdmakv.protocol.ProtocolLimits;
import io.rdmakv.transport.tls.TlsSettings;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

/**
 * Drives rdmakv through {@link KvClient}, the way an application uses it: a few thread-safe clients (each with its own
 * transport, data connection and progress thread), over which the generator's connections are dealt round-robin as
 * independent request streams. One client per generator connection would start a progress thread and transport
 * I/O threads per connection, which on a small machine measures thread scheduling, not the store.
 * Operations go through the async API so several are in flight; each operation's end time is taken in its completion
 * callback (not when the generator gets round to it), so pipelined latencies are not inflated by in-order collection.
 */
public final class RdmakvDriver implements KvDriver
{
    private final List<String> servers;
    private final String transport;
    private final GetMode getMode;
    private final Duration timeout;
    private final String credential;
    /** The user each client logs in as, or null. */
    private final Login login;
    private final TlsSettings tls;
    private final int clientCount;
    private final int inFlightPerClient;
    private final int locationCacheEntries;
    /** Every PUT's time to live (the load's too), or null for none. */
    private Duration ttl;
    private final List<KvClient> clients = new ArrayList<>();
    private KvClient statsClient;
    private int connections;

    /**
     * @param clientCount    KvClient instances the connections share.
     * @param totalInFlight  requests the generator keeps in flight over all connections (sizes each client's bound).
     * @param locationCacheEntries keys per node each client remembers the location of (0 = off).
     * @param tls            TLS to the nodes ({@link TlsSettings#OFF} for plaintext).
     */
    public RdmakvDriver(final List<String> servers, final String transport, final GetMode getMode,
        final Duration timeout, final String credential, final int clientCount, final int totalInFlight,
        final int locationCacheEntries, final TlsSettings tls)
    {
        this(servers, transport, getMode, timeout, credential, null, clientCount, totalInFlight, locationCacheEntries,
            tls);
    }

    /** @param login the user every client logs in as (SCRAM-SHA-256), or null. */
    public RdmakvDriver(final List<String> servers, final String transport, final GetMode getMode,
        final Duration timeout, final String credential, final Login login, final int clientCount,
        final int totalInFlight, final int locationCacheEntries, final TlsSettings tls)
    {
        this.login = login;
        this.tls = tls;
        this.locationCacheEntries = locationCacheEntries;
        this.servers = List.copyOf(servers);
        this.transport = transport;
        this.getMode = getMode;
        this.timeout = timeout;
        this.credential = credential;
        if (clientCount < 1)
        {
            throw new BenchException("--clients must be positive: " + clientCount);
        }
        this.clientCount = clientCount;
        this.inFlightPerClient = Math.max(16, (totalInFlight + clientCount - 1) / clientCount);
    }

    @Override
    public String name()
    {
        return "rdmakv";
    }

    /**
     * Write every key with this time to live ({@code --ttl}: GETs of values with an expiry), null for none; before
     * {@link #connect}.
     */
    public synchronized RdmakvDriver ttl(final Duration timeToLive)
    {
        this.ttl = timeToLive;
        return this;
    }

    /**
     * Keys and values within the format's limits ({@link ProtocolLimits}), then within the node's: the first client
     * connects here (the run deals its connections over it as usual).
     */
    @Override
    public synchronized void checkSizes(final int keySize, final int valueSize)
    {
        check("--key-size", keySize, ProtocolLimits.MAX_KEY_LENGTH, "the protocol's largest key");
        check("--value-size", valueSize, ProtocolLimits.MAX_FORMAT_VALUE_LENGTH, "the protocol's largest value");
        if (clients.isEmpty())
        {
            clients.add(newClient());
        }
        final KvClient first = clients.get(0);
        check("--key-size", keySize, first.maxKeyLength(), "the largest key the node accepts (limits.maxKeyBytes)");
        check("--value-size", valueSize, first.maxValueLength(),
            "the largest value the node accepts (limits.maxValueBytes)");
    }

    private void check(final String option, final int size, final int limit, final String what)
    {
        if (size > limit)
        {
            throw new BenchException(option + " " + size + " is more than " + what + ", " + limit + " bytes, at " +
                servers);
        }
    }

    @Override
    public synchronized DriverConnection connect()
    {
        final int index = connections++ % clientCount;
        if (index < clients.size())
        {
            return new Connection(clients.get(index), ttl);
        }
        final KvClient client = newClient();
        clients.add(client);
        return new Connection(client, ttl);
    }

    private KvClient newClient()
    {
        final KvClientBuilder builder = KvClient.builder()
            .servers(servers)
            .transport(transport)
            .getMode(getMode)
            .connectTimeout(timeout)
            .requestTimeout(timeout)
            .maxInFlight(inFlightPerClient)
            .locationCacheEntries(locationCacheEntries)
            .tls(tls.caFile(), tls.certFile(), tls.keyFile());
        if (credential != null && !credential.isEmpty())
        {
            builder.secret(credential);
        }
        builder.login(login);
        try
        {
            return builder.build();
        }
        catch (final RuntimeException ex)
        {
            throw new BenchException("cannot connect to rdmakv at " + servers + ": " + ex.getMessage(), ex);
        }
    }

    @Override
    public synchronized Map<String, Long> counters()
    {
        final Map<String, Long> sums = new LinkedHashMap<>();
        for (final ClientCounter c : ClientCounter.values())
        {
            sums.put(c.label(), 0L);
        }
        for (final KvClient client : clients)
        {
            client.diagnostics().counters().forEach((c, v) -> sums.merge(c.label(), v, Long::sum));
        }
        return sums;
    }

    /**
     * Every node's numeric STATS values, summed by name; nodes that did not answer are left out. Read through a
     * client of its own (made at the first call), so its requests are not among {@link #counters()}; empty when that
     * client cannot connect.
     */
    @Override
    public synchronized Map<String, Long> serverCounters()
    {
        final Map<String, Long> sums = new LinkedHashMap<>();
        final Map<Integer, Map<String, String>> nodes;
        try
        {
            if (statsClient == null)
            {
                statsClient = newClient();
            }
            nodes = statsClient.stats().nodes();
        }
        catch (final RuntimeException unreachable)
        {
            return sums;
        }
        for (final Map<String, String> node : nodes.values())
        {
            if (node.containsKey("error"))
            {
                continue;
            }
            node.forEach((name, value) ->
            {
                try
                {
                    sums.merge(name, Long.parseLong(value), Long::sum);
                }
                catch (final NumberFormatException notACounter)
                {
                    // version, transport, reasons, latency summaries: not counters
                }
            });
        }
        return sums;
    }

    @Override
    public synchronized String describe()
    {
        final String cache = ", location cache " +
            (locationCacheEntries == 0 ? "off" : locationCacheEntries + " entries per node");
        if (clients.isEmpty())
        {
            return "rdmakv at " + servers + cache;
        }
        final KvClient c = clients.get(0);
        return "rdmakv at " + servers + ", transport " + c.diagnostics().transport() + ", get mode " +
            c.diagnostics().getMode().toString().toLowerCase(java.util.Locale.ROOT) + cache + ", " + clients.size() + " client(s)";
    }

    @Override
    public synchronized void close()
    {
        for (final KvClient client : clients)
        {
            client.close();
        }
        clients.clear();
        if (statsClient != null)
        {
            statsClient.close();
            statsClient = null;
        }
    }

    /** One request stream over a shared KvClient; a FIFO of its operations in flight. */
    private static final class Connection implements DriverConnection
    {
        private final KvClient client;
        private final Duration ttl;
        private final ArrayDeque<Pending> pending = new ArrayDeque<>();
        private final ArrayDeque<Pending> free = new ArrayDeque<>();

        Connection(final KvClient client, final Duration ttl)
        {
            this.client = client;
            this.ttl = ttl;
        }

        @Override
        public void get(final byte[] key, final long startNanos)
        {
            final Pending p = take(OpType.GET, startNanos);
            p.future = client.getAsync(key).whenComplete((value, failure) ->
            {
                p.endNanos = System.nanoTime();
                p.hit = value != null;
            });
            pending.addLast(p);
        }

        @Override
        public void put(final OpType type, final byte[] key, final byte[] value, final long startNanos)
        {
            final Pending p = take(type, startNanos);
            p.future = (ttl == null ? client.putAsync(key, value) : client.putAsync(key, value, ttl))
                .whenComplete((ignored, failure) -> p.endNanos = System.nanoTime());
            pending.addLast(p);
        }

        @Override
        public void flush()
        {
            // The client sends as operations are issued.
        }

        @Override
        public int outstanding()
        {
            return pending.size();
        }

        @Override
        public void completeOldest(final Completion completion)
        {
            final Pending p = pending.pollFirst();
            if (p == null)
            {
                throw new IllegalStateException("nothing outstanding");
            }
            String error = null;
            try
            {
                // The client enforces its request timeout; this bound only guards against a lost completion.
                p.future.get(60, TimeUnit.SECONDS);
            }
            catch (final java.util.concurrent.ExecutionException | CompletionException ex)
            {
                error = String.valueOf(ex.getCause() == null ? ex : ex.getCause().getMessage());
            }
            catch (final java.util.concurrent.TimeoutException ex)
            {
                throw new BenchException("an rdmakv operation did not complete within 60 s");
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new BenchException("interrupted");
            }
            completion.set(p.type, p.startNanos, p.endNanos, p.hit, error != null, error);
            p.future = null;
            free.addLast(p);
        }

        private Pending take(final OpType type, final long startNanos)
        {
            Pending p = free.pollFirst();
            if (p == null)
            {
                p = new Pending();
            }
            p.type = type;
            p.startNanos = startNanos;
            p.endNanos = 0;
            p.hit = false;
            return p;
        }

        @Override
        public void close()
        {
            // The driver closes its clients.
        }
    }

    private static final class Pending
    {
        OpType type;
        long startNanos;
        volatile long endNanos;
        volatile boolean hit;
        CompletableFuture<?> future;
    }
}
