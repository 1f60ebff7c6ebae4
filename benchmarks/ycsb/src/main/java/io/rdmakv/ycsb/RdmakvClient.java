package io.rdmakv.ycsb;

import io.rdmakv.client.GetMode;
import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvClientBuilder;
import site.ycsb.DBException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

/**
 * YCSB's binding of rdmakv: {@code -db io.rdmakv.ycsb.RdmakvClient}. Records as {@link RecordDb} describes, over
 * one {@link KvClient} shared by every YCSB thread of the JVM (YCSB makes one {@code DB} per thread; the client is
 * thread-safe and meant to be shared): the first {@code init} connects it, the last {@code cleanup} closes it.
 *
 * <p>Properties ({@code -p name=value} or the workload file):
 * <ul>
 *   <li>{@value #SEED}: {@code host:port} of a node's control port, several separated by commas (default
 *       {@code 127.0.0.1:7400});</li>
 *   <li>{@value #TRANSPORT}: {@code auto} (default: the best the node and this host share), {@code tcp},
 *       {@code shm} or {@code verbs};</li>
 *   <li>{@value #SECRET}: the node's {@code auth.secret}, when it has one;</li>
 *   <li>{@value #CONNECT_TIMEOUT_MS}, {@value #REQUEST_TIMEOUT_MS}: the client's bounds (default 5,000 each);</li>
 *   <li>{@value #MAX_IN_FLIGHT}: requests outstanding over the client (default: the client's, 64; YCSB's threads
 *       each have one);</li>
 *   <li>{@value #GET_MODE}: {@code auto} (default), {@code one_sided} or {@code rpc};</li>
 *   <li>{@value RecordDb#UPDATE_MODE}: {@code merge} (default) or {@code overwrite} ({@link RecordDb}).</li>
 * </ul>
 */
public final class RdmakvClient extends RecordDb
{
    /** Seed nodes' control addresses, {@code host:port[,host:port...]}. */
    public static final String SEED = "rdmakv.seed";
    /** The data transport. */
    public static final String TRANSPORT = "rdmakv.transport";
    /** The shared secret. */
    public static final String SECRET = "rdmakv.secret";
    /** Handshake and connect bound in milliseconds. */
    public static final String CONNECT_TIMEOUT_MS = "rdmakv.connectTimeoutMs";
    /** Per-request bound in milliseconds. */
    public static final String REQUEST_TIMEOUT_MS = "rdmakv.requestTimeoutMs";
    /** Requests outstanding at once over the shared client. */
    public static final String MAX_IN_FLIGHT = "rdmakv.maxInFlight";
    /** How GETs are served. */
    public static final String GET_MODE = "rdmakv.getMode";

    private static final Object LOCK = new Object();
    private static KvClient shared;
    private static String sharedSettings;
    private static int references;

    private KvClient client;

    @Override
    public void init() throws DBException
    {
        readRecordProperties();
        final Properties p = getProperties();
        final String settings = settings(p);
        synchronized (LOCK)
        {
            if (shared == null)
            {
                try
                {
                    shared = builder(p).build();
                }
                catch (final RuntimeException ex)
                {
                    throw new DBException("rdmakv: cannot connect with " + settings + ": " + ex.getMessage(), ex);
                }
                sharedSettings = settings;
            }
            else if (!sharedSettings.equals(settings))
            {
                throw new DBException("rdmakv: this JVM's client is open with " + sharedSettings + "; a DB with " +
                    settings + " cannot share it");
            }
            references++;
            client = shared;
        }
    }

    @Override
    public void cleanup() throws DBException
    {
        synchronized (LOCK)
        {
            if (client == null)
            {
                return;
            }
            client = null;
            if (--references == 0)
            {
                final KvClient last = shared;
                shared = null;
                sharedSettings = null;
                try
                {
                    last.close();
                }
                catch (final RuntimeException ex)
                {
                    throw new DBException("rdmakv: closing the client failed: " + ex.getMessage(), ex);
                }
            }
        }
    }

    /**
     * How many {@code DB} instances of this JVM hold the shared client (tests).
     *
     * @return 0 when it is closed.
     */
    static int references()
    {
        synchronized (LOCK)
        {
            return references;
        }
    }

    @Override
    protected byte[] getRecord(final byte[] key)
    {
        return client.get(key);
    }

    @Override
    protected void putRecord(final byte[] key, final byte[] record)
    {
        client.put(key, record);
    }

    @Override
    protected boolean deleteRecord(final byte[] key)
    {
        return client.delete(key);
    }

    private static KvClientBuilder builder(final Properties p)
    {
        final KvClientBuilder b = KvClient.builder().servers(seeds(p)).transport(p.getProperty(TRANSPORT, "auto").trim());
        final String secret = p.getProperty(SECRET);
        if (secret != null && !secret.isEmpty())
        {
            b.secret(secret);
        }
        final String connect = p.getProperty(CONNECT_TIMEOUT_MS);
        if (connect != null)
        {
            b.connectTimeout(Duration.ofMillis(Long.parseLong(connect.trim())));
        }
        final String request = p.getProperty(REQUEST_TIMEOUT_MS);
        if (request != null)
        {
            b.requestTimeout(Duration.ofMillis(Long.parseLong(request.trim())));
        }
        final String inFlight = p.getProperty(MAX_IN_FLIGHT);
        if (inFlight != null)
        {
            b.maxInFlight(Integer.parseInt(inFlight.trim()));
        }
        final String getMode = p.getProperty(GET_MODE);
        if (getMode != null)
        {
            b.getMode(GetMode.valueOf(getMode.trim().toUpperCase(Locale.ROOT)));
        }
        return b;
    }

    private static List<String> seeds(final Properties p)
    {
        final List<String> seeds = new ArrayList<>();
        for (final String s : p.getProperty(SEED, "127.0.0.1:" + KvClientBuilder.DEFAULT_CONTROL_PORT).split(","))
        {
            if (!s.isBlank())
            {
                seeds.add(s.trim());
            }
        }
        return seeds;
    }

    /** The settings that make a client, secret left out, to tell whether two DBs can share one. */
    private static String settings(final Properties p)
    {
        final StringBuilder s = new StringBuilder();
        for (final String name : List.of(SEED, TRANSPORT, CONNECT_TIMEOUT_MS, REQUEST_TIMEOUT_MS, MAX_IN_FLIGHT,
            GET_MODE))
        {
            final String v = p.getProperty(name);
            if (v != null)
            {
                s.append(s.length() == 0 ? "" : ", ").append(name).append('=').append(v.trim());
            }
        }
        return s.length() == 0 ? "the defaults" : s.toString();
    }
}
