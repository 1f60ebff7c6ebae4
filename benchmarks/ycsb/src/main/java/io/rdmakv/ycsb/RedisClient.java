package io.rdmakv.ycsb;

import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import site.ycsb.DBException;

import java.util.Properties;

/**
 * YCSB's binding of redis with rdmakv's record encoding: {@code -db io.rdmakv.ycsb.RedisClient}. A record is ONE
 * redis string ({@code GET}/{@code SET}/{@code DEL}) holding {@link RecordCodec}'s bytes, with the semantics of
 * {@link RecordDb}, so this binding and {@link RdmakvClient} move the same bytes per operation under the same
 * generator. (YCSB's own redis binding stores a hash per record: {@code HMGET}/{@code HMSET}; not comparable
 * byte for byte.)
 *
 * <p>A connection per YCSB thread (YCSB makes one {@code DB} per thread): opened by {@code init}, closed by
 * {@code cleanup}, one request in flight on each. No pool: a pool would hand each thread the same one connection
 * for the whole run anyway, and Jedis 7 deprecates {@code JedisPool}.
 *
 * <p>Properties: {@value #HOST} (default {@code 127.0.0.1}), {@value #PORT} (default 6379), {@value #PASSWORD}
 * (default none), {@value #TIMEOUT_MS} (connect and socket timeout, default 5,000), {@value RecordDb#UPDATE_MODE}.
 */
public final class RedisClient extends RecordDb
{
    /** The server's host. */
    public static final String HOST = "redis.host";
    /** The server's port. */
    public static final String PORT = "redis.port";
    /** The server's password ({@code requirepass}). */
    public static final String PASSWORD = "redis.password";
    /** Connect and socket timeout in milliseconds. */
    public static final String TIMEOUT_MS = "redis.timeoutMs";

    private Jedis jedis;

    @Override
    public void init() throws DBException
    {
        readRecordProperties();
        final Properties p = getProperties();
        final DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder()
            .timeoutMillis(Integer.parseInt(p.getProperty(TIMEOUT_MS, "5000").trim()));
        final String password = p.getProperty(PASSWORD);
        if (password != null && !password.isEmpty())
        {
            config.password(password);
        }
        final HostAndPort server = new HostAndPort(p.getProperty(HOST, "127.0.0.1").trim(),
            Integer.parseInt(p.getProperty(PORT, "6379").trim()));
        try
        {
            jedis = new Jedis(server, config.build());
            jedis.ping();
        }
        catch (final RuntimeException ex)
        {
            cleanup();
            throw new DBException("redis: cannot connect to " + server + ": " + ex.getMessage(), ex);
        }
    }

    @Override
    public void cleanup()
    {
        if (jedis != null)
        {
            jedis.close();
            jedis = null;
        }
    }

    @Override
    protected byte[] getRecord(final byte[] key)
    {
        return jedis.get(key);
    }

    @Override
    protected void putRecord(final byte[] key, final byte[] record)
    {
        jedis.set(key, record);
    }

    @Override
    protected boolean deleteRecord(final byte[] key)
    {
        return jedis.del(key) > 0;
    }
}
