package io.rdmakv.cli.bench;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The floor: the same generator against an in-process {@link ConcurrentHashMap}, each GET's value copied out into
 * the connection's buffer as a client's GET copies it out of the pool. No network, no process boundary, no
 * durability: what a GET costs at the least on this machine, printed beside a store's figures (issue #15).
 */
final class LocalMapDriver implements KvDriver
{
    private final ConcurrentHashMap<ByteBuffer, byte[]> map = new ConcurrentHashMap<>();

    @Override
    public String name()
    {
        return "local";
    }

    @Override
    public DriverConnection connect()
    {
        return new Connection();
    }

    @Override
    public void checkSizes(final int keySize, final int valueSize)
    {
    }

    @Override
    public String describe()
    {
        return "an in-process ConcurrentHashMap (values copied out), the floor of this machine";
    }

    @Override
    public void close()
    {
    }

    private final class Connection implements DriverConnection
    {
        private byte[] copy = new byte[256];
        private OpType type;
        private long startNanos;
        private long endNanos;
        private boolean hit;
        private int outstanding;

        @Override
        public void get(final byte[] key, final long startNanos)
        {
            final byte[] value = map.get(ByteBuffer.wrap(key));
            if (value != null)
            {
                if (copy.length < value.length)
                {
                    copy = new byte[value.length];
                }
                System.arraycopy(value, 0, copy, 0, value.length);
            }
            done(OpType.GET, startNanos, value != null);
        }

        @Override
        public void put(final OpType type, final byte[] key, final byte[] value, final long startNanos)
        {
            map.put(ByteBuffer.wrap(key.clone()), value.clone());
            done(type, startNanos, true);
        }

        private void done(final OpType type, final long startNanos, final boolean hit)
        {
            this.endNanos = System.nanoTime();
            this.type = type;
            this.startNanos = startNanos;
            this.hit = hit;
            outstanding = 1;
        }

        @Override
        public void flush()
        {
        }

        @Override
        public int outstanding()
        {
            return outstanding;
        }

        @Override
        public void completeOldest(final Completion completion)
        {
            completion.set(type, startNanos, endNanos, hit, false, null);
            outstanding = 0;
        }

        @Override
        public void close()
        {
        }
    }
}
