package io.rdmakv.cli.bench;

/**
 * One connection of a driver, used by one thread. Operations are queued ({@link #get}, {@link #put}), sent by
 * {@link #flush()} (pipelining: several may be in flight) and completed in order by {@link #completeOldest}.
 * Keys and values must not change until their operation has completed.
 */
public interface DriverConnection extends AutoCloseable
{
    /** Queue a GET started at {@code startNanos}. */
    void get(byte[] key, long startNanos);

    /** Queue a PUT (SET) started at {@code startNanos}; {@code type} says whether it updates or inserts. */
    void put(OpType type, byte[] key, byte[] value, long startNanos);

    /** Send what is queued. */
    void flush();

    /** Operations queued or in flight, not yet completed. */
    int outstanding();

    /**
     * Wait for the oldest outstanding operation and describe it in {@code completion} (reused by the caller).
     *
     * @throws BenchException when the connection fails (a failed single operation is an {@link Completion#error}).
     */
    void completeOldest(Completion completion);

    @Override
    void close();

    /** The outcome of one operation. Mutable and reused: no allocation per operation in the generator. */
    final class Completion
    {
        public OpType type;
        public long startNanos;
        public long endNanos;
        /** GET found a value. */
        public boolean hit;
        /** The operation failed (the store answered an error, or timed out). */
        public boolean error;
        public String errorText;

        public Completion set(final OpType type, final long startNanos, final long endNanos, final boolean hit,
            final boolean error, final String errorText)
        {
            this.type = type;
            this.startNanos = startNanos;
            this.endNanos = endNanos;
            this.hit = hit;
            this.error = error;
            this.errorText = errorText;
            return this;
        }
    }
}
