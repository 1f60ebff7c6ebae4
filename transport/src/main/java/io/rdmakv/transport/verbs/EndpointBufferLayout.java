package io.rdmakv.transport.verbs;

import io.rdmakv.transport.TransportException;

/**
 * Where one endpoint's buffers sit in its slice of the worker's {@link EndpointBufferPool}, and how large a slice is.
 * Every endpoint of a worker has the same queue depths, so every slice has this one layout.
 *
 * <pre>
 *  slice offset 0          recvBase                    bounceBase                  sliceBytes
 *  v                       v                           v                           v
 *  +-----------------------+---------------------------+-------------------+-------+
 *  | send buffers          | receive buffers           | read bounce area  |  pad  |
 *  | sendDepth x fragment  | recvDepth x fragment      | readBounceBytes   | to 4K |
 *  +-----------------------+---------------------------+-------------------+-------+
 *  send buffer i belongs to send WR i; receive buffer i to receive WR i
 * </pre>
 *
 * A slice is viewed through one {@link org.agrona.concurrent.UnsafeBuffer}, so it must stay below 2 GiB.
 */
final class EndpointBufferLayout
{
    static final int SLICE_ALIGNMENT = 4096;

    final int sendDepth;
    final int recvDepth;
    final int fragmentBytes;
    final int readBounceBytes;
    final int recvBase;
    final int bounceBase;
    final int sliceBytes;

    /**
     * @throws TransportException when a slice would not fit one buffer view (2 GiB), naming the settings.
     */
    EndpointBufferLayout(final int sendDepth, final int recvDepth, final int fragmentBytes, final int readBounceBytes)
    {
        if (sendDepth <= 0 || recvDepth <= 0 || fragmentBytes <= 0 || readBounceBytes <= 0)
        {
            throw new IllegalArgumentException("endpoint buffer layout needs positive sizes: send depth " + sendDepth +
                ", receive depth " + recvDepth + ", fragment " + fragmentBytes + ", bounce " + readBounceBytes);
        }
        final long recv = (long)sendDepth * fragmentBytes;
        final long bounce = recv + (long)recvDepth * fragmentBytes;
        final long slice = (bounce + readBounceBytes + SLICE_ALIGNMENT - 1) & -SLICE_ALIGNMENT;
        if (slice > Integer.MAX_VALUE - SLICE_ALIGNMENT)
        {
            throw new TransportException("one endpoint's buffers would take " + slice + " bytes ((verbs.sendDepth " +
                sendDepth + " + verbs.recvDepth " + recvDepth + ") x verbs.fragmentBytes " + fragmentBytes +
                " + verbs.readBounceBytes " + readBounceBytes + "), more than the 2 GiB one endpoint may use: " +
                "lower the depths or the fragment size");
        }
        this.sendDepth = sendDepth;
        this.recvDepth = recvDepth;
        this.fragmentBytes = fragmentBytes;
        this.readBounceBytes = readBounceBytes;
        this.recvBase = (int)recv;
        this.bounceBase = (int)bounce;
        this.sliceBytes = (int)slice;
    }

    /** Offset of send buffer {@code sendSlot} in a slice. */
    int sendOffset(final int sendSlot)
    {
        return sendSlot * fragmentBytes;
    }

    /** Offset of receive buffer {@code index} in a slice. */
    int recvOffset(final int index)
    {
        return recvBase + index * fragmentBytes;
    }

    /** Bytes of {@code endpoints} slices, the size of a pool for that many endpoints. */
    long poolBytes(final int endpoints)
    {
        return (long)endpoints * sliceBytes;
    }

    /**
     * How a block for {@code endpoints} slices is made, naming the settings:
     * {@code verbs.maxEndpoints 16 x 5124 KiB ((verbs.sendDepth 128 + verbs.recvDepth 128) x verbs.fragmentBytes
     * 16384 B + verbs.readBounceBytes 1052672 B, to 4 KiB)}.
     */
    String describeBlock(final int endpoints)
    {
        return "verbs.maxEndpoints " + endpoints + " x " + sliceBytes / 1024 + " KiB per endpoint ((verbs.sendDepth " +
            sendDepth + " + verbs.recvDepth " + recvDepth + ") x verbs.fragmentBytes " + fragmentBytes +
            " B + verbs.readBounceBytes " + readBounceBytes + " B, to 4 KiB)";
    }

    @Override
    public String toString()
    {
        return "EndpointBufferLayout{send " + sendDepth + " + recv " + recvDepth + " x " + fragmentBytes +
            " B + bounce " + readBounceBytes + " B = " + sliceBytes + " B per endpoint}";
    }
}
