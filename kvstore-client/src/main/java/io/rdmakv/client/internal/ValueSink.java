package io.rdmakv.client.internal;

import org.agrona.DirectBuffer;

/**
 * Where a GET's value goes when the caller gave a destination instead of taking a {@code byte[]}: the protocol hands
 * it the value where it lies (the slot's read window after a one-sided read, the transport's receive buffer for an
 * RPC answer), so the sink's copy is the only one. Public only because the Chronicle adapter lives in the API package.
 */
public interface ValueSink
{
    /**
     * Take the value, on the thread completing the GET (the progress thread or a caller driving progress). The bytes
     * are valid only during the call. Must not throw: a refusal (say, no room in the destination) is returned and
     * becomes the request's failure.
     *
     * @param buffer the value's memory.
     * @param index  where the value starts in {@code buffer}.
     * @param length the value's length in bytes.
     * @return {@code null} when taken, else why not (thrown to the caller, or failing its future).
     */
    RuntimeException accept(DirectBuffer buffer, int index, int length);
}
