package io.rdmakv.cli.bench;

/**
 * The in-order bookkeeping shared by the text-protocol drivers: a ring of the operations sent and not yet answered
 * (responses come back in request order), so {@link #completeOldest} reads exactly one response for the oldest.
 */
abstract class PipelinedConnection implements DriverConnection
{
    protected final ProtocolSocket socket;
    private OpType[] types = new OpType[16];
    private long[] starts = new long[16];
    private int head;
    private int count;

    PipelinedConnection(final ProtocolSocket socket)
    {
        this.socket = socket;
    }

    /** Write the request bytes of a GET. */
    protected abstract void writeGet(byte[] key);

    /** Write the request bytes of a SET. */
    protected abstract void writeSet(byte[] key, byte[] value);

    /**
     * Read the response to the oldest request, of {@code type}.
     *
     * @return null when it succeeded, else the store's error text; sets {@link #hit} for GETs.
     */
    protected abstract String readResponse(OpType type);

    /** Whether the last GET response carried a value. */
    protected boolean hit;

    @Override
    public final void get(final byte[] key, final long startNanos)
    {
        writeGet(key);
        remember(OpType.GET, startNanos);
    }

    @Override
    public final void put(final OpType type, final byte[] key, final byte[] value, final long startNanos)
    {
        writeSet(key, value);
        remember(type, startNanos);
    }

    @Override
    public final void flush()
    {
        socket.flush();
    }

    @Override
    public final int outstanding()
    {
        return count;
    }

    @Override
    public final void completeOldest(final Completion completion)
    {
        if (count == 0)
        {
            throw new IllegalStateException("nothing outstanding");
        }
        final int ringIndex = head;
        head = (head + 1) & (types.length - 1);
        count--;
        hit = false;
        final String error = readResponse(types[ringIndex]);
        completion.set(types[ringIndex], starts[ringIndex], System.nanoTime(), hit, error != null, error);
    }

    @Override
    public void close()
    {
        socket.close();
    }

    /** Write system calls so far (a flushed pipeline is one). */
    final long writes()
    {
        return socket.writes();
    }

    /** Read system calls that returned data so far. */
    final long reads()
    {
        return socket.reads();
    }

    private void remember(final OpType type, final long startNanos)
    {
        if (count == types.length)
        {
            grow();
        }
        final int ringIndex = (head + count) & (types.length - 1);
        types[ringIndex] = type;
        starts[ringIndex] = startNanos;
        count++;
    }

    private void grow()
    {
        final OpType[] t = new OpType[types.length * 2];
        final long[] s = new long[starts.length * 2];
        for (int i = 0; i < count; i++)
        {
            t[i] = types[(head + i) & (types.length - 1)];
            s[i] = starts[(head + i) & (starts.length - 1)];
        }
        types = t;
        starts = s;
        head = 0;
    }
}
