package io.rdmakv.client.internal;

import org.agrona.DirectBuffer;

import java.nio.ByteBuffer;

/**
 * One asynchronous request: the future handed to the caller, and what the request needs until it has a request slot
 * (its type, the key and value as given, its deadline fixed at the call). It waits in the {@link RequestQueue} when no
 * request slot is free; a request slot that runs it refers back to it and hands the typed result over through
 * {@link #capture}/{@link #deliver}. One allocation per async call. A thread that blocks on it (or on a stage made
 * from it) drives the client's progress while it waits ({@link DrivenFuture}).
 *
 * @param <T> what the request returns.
 */
final class AsyncCall<T> extends DrivenFuture<T>
{
    final RequestType<T> type;
    final long deadlineNanos;
    private int recordOp;
    private long recordExpected;
    private long recordArgument;
    private byte[] keyBytes;
    private ByteBuffer keyBuffer;
    private int keyPosition;
    private int keyLength;
    private byte[] valueBytes;
    private ByteBuffer valueBuffer;
    private int valuePosition;
    private int valueLength;
    private DirectBuffer keyView;
    private DirectBuffer valueView;
    private ValueSink sink;
    private T result;
    private RuntimeException failure;

    AsyncCall(final RequestType<T> type, final long deadlineNanos, final Drive drive)
    {
        super(drive);
        this.type = type;
        this.deadlineNanos = deadlineNanos;
    }

    AsyncCall<T> bytes(final byte[] key, final byte[] value)
    {
        this.keyBytes = key;
        this.keyLength = key.length;
        this.valueBytes = value;
        this.valueLength = value == null ? 0 : value.length;
        return this;
    }

    /** The bytes between position and limit, as they are now (the buffers' positions are never moved). */
    AsyncCall<T> buffers(final ByteBuffer key, final ByteBuffer value)
    {
        this.keyBuffer = key;
        this.keyPosition = key.position();
        this.keyLength = key.remaining();
        this.valueBuffer = value;
        this.valuePosition = value == null ? 0 : value.position();
        this.valueLength = value == null ? 0 : value.remaining();
        return this;
    }

    /** Views over the caller's memory (no copies); {@code value} may be null, {@code sink} only for a GET. */
    AsyncCall<T> views(final DirectBuffer key, final DirectBuffer value, final ValueSink sink)
    {
        this.keyView = key;
        this.keyLength = key.capacity();
        this.valueView = value;
        this.valueLength = value == null ? 0 : value.capacity();
        this.sink = sink;
        return this;
    }

    int keyLength()
    {
        return keyLength;
    }

    int valueLength()
    {
        return valueLength;
    }

    /** Point the request slot's request views at the key and value (no copies), and the request slot at this call. */
    void fill(final RequestSlot requestSlot)
    {
        if (keyBytes != null)
        {
            requestSlot.key.wrap(keyBytes);
            requestSlot.keyLength = keyLength;
            if (valueBytes != null)
            {
                requestSlot.value.wrap(valueBytes);
            }
            requestSlot.valueLength = valueLength;
        }
        else if (keyView != null)
        {
            views(requestSlot, keyView, valueView);
        }
        else
        {
            wrap(requestSlot, keyBuffer, keyPosition, keyLength, valueBuffer, valuePosition, valueLength);
        }
        requestSlot.sink = sink;
        requestSlot.call = this;
        requestSlot.recordOp = recordOp;
        requestSlot.recordExpected = recordExpected;
        requestSlot.recordArgument = recordArgument;
    }

    /** A RECORD_WRITE's op and fields (copied into the request slot by {@link #fill}). */
    AsyncCall<T> record(final int op, final long expected, final long argument)
    {
        this.recordOp = op;
        this.recordExpected = expected;
        this.recordArgument = argument;
        return this;
    }

    /** Point the request slot's request views at buffer ranges ({@code value} may be null: no value). */
    static void wrap(final RequestSlot requestSlot, final ByteBuffer key, final int keyPosition, final int keyLength,
        final ByteBuffer value, final int valuePosition, final int valueLength)
    {
        requestSlot.key.wrap(key, keyPosition, keyLength);
        requestSlot.keyLength = keyLength;
        if (value != null)
        {
            if (valueLength == 0)
            {
                requestSlot.value.wrap(new byte[0]);
            }
            else
            {
                requestSlot.value.wrap(value, valuePosition, valueLength);
            }
        }
        requestSlot.valueLength = valueLength;
    }

    /** Point the request slot's request views at views of the caller's memory ({@code value} may be null: no value). */
    static void views(final RequestSlot requestSlot, final DirectBuffer key, final DirectBuffer value)
    {
        requestSlot.key.wrap(key);
        requestSlot.keyLength = key.capacity();
        if (value != null)
        {
            requestSlot.value.wrap(value);
        }
        requestSlot.valueLength = value == null ? 0 : value.capacity();
    }

    /** Take the request slot's typed outcome (before the request slot is released). */
    void capture(final RequestSlot requestSlot)
    {
        try
        {
            result = type.outcome(requestSlot);
        }
        catch (final RuntimeException ex) // a KvException, or a ValueSink's refusal
        {
            failure = ex;
        }
    }

    /** Complete the future with what {@link #capture} took; drops the references to the caller's memory. */
    void deliver()
    {
        dropReferences();
        if (failure == null)
        {
            complete(result);
        }
        else
        {
            completeExceptionally(failure);
        }
    }

    /** Fail without a request slot (refused, expired in the queue, client closed). */
    void fail(final Throwable failure)
    {
        dropReferences();
        completeExceptionally(failure);
    }

    private void dropReferences()
    {
        keyBytes = null;
        keyBuffer = null;
        valueBytes = null;
        valueBuffer = null;
        keyView = null;
        valueView = null;
        sink = null;
    }
}
