package io.rdmakv.protocol.layout;

import org.agrona.DirectBuffer;

/**
 * The two hashes of a key, as a {@link HashedKey} computes them: {@link #STANDARD} is {@link KeyHash}'s (XXH64 for the
 * pool's index, Redis Cluster's CRC16 slot for routing), the only one clients and nodes agree on. The interface is the
 * seam a test counts computations through (a key is hashed once per request: at decode on the node, at the API call
 * in the client); production code uses {@link #STANDARD}.
 */
public interface KeyHasher
{
    /** {@link KeyHash#hash(DirectBuffer, int, int)} and {@link KeyHash#hashSlot(DirectBuffer, int, int)}. */
    KeyHasher STANDARD = new KeyHasher()
    {
        @Override
        public long hash(final DirectBuffer key, final int offset, final int length)
        {
            return KeyHash.hash(key, offset, length);
        }

        @Override
        public int hashSlot(final DirectBuffer key, final int offset, final int length)
        {
            return KeyHash.hashSlot(key, offset, length);
        }
    };

    /** The 64-bit index hash of the key's {@code length} bytes at {@code offset}. */
    long hash(DirectBuffer key, int offset, int length);

    /** The cluster (hash) slot of the key, {@code 0..16383}. */
    int hashSlot(DirectBuffer key, int offset, int length);
}
