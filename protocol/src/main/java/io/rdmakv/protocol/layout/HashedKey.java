package io.rdmakv.protocol.layout;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A key as it travels down a request's path: a view of its bytes with its 64-bit index hash and its hash slot, both
 * computed once, when the key is first seen (decode on the node, the API call in the client), and read by every step
 * after (routing and ownership, the pool index's buckets and fingerprint, the store key's slot prefix, replication).
 *
 * <pre>
 *   wrap(buffer, offset, length)         hashes the bytes (KeyHasher: XXH64 and CRC16 slot), once
 *   wrapHashed(buffer, offset, length,   the same key's bytes copied elsewhere (a batch's staging buffer, a copy
 *              hash, hashSlot)           kept for later): its hashes carried along, not computed again
 *   buffer() offset() length() hash() hashSlot()
 * </pre>
 * Mutable and reused, like the flyweights it is made from: one per request thread (or per batch that keeps keys), so
 * a path that hashes once allocates nothing. A holder must not keep it past the call it was given in (its view moves
 * with the next request); a step that keeps a key keeps a copy of the bytes and the two hashes. Not thread-safe.
 */
public final class HashedKey
{
    private final KeyHasher hasher;
    private DirectBuffer buffer;
    private int offset;
    private int length;
    private long hash;
    private int hashSlot;

    /** A key reference hashed with {@link KeyHasher#STANDARD}. */
    public HashedKey()
    {
        this(KeyHasher.STANDARD);
    }

    /** A key reference hashed with {@code hasher} (tests count computations through it). */
    public HashedKey(final KeyHasher hasher)
    {
        this.hasher = hasher;
    }

    /** A new reference to a whole array, hashed. Allocates (the reference and a view): for paths that are not hot. */
    public static HashedKey of(final byte[] key)
    {
        return new HashedKey().wrap(new UnsafeBuffer(key), 0, key.length);
    }

    /** Refer to the {@code length} bytes at {@code offset} of {@code buffer}, and hash them. */
    public HashedKey wrap(final DirectBuffer buffer, final int offset, final int length)
    {
        buffer.boundsCheck(offset, length);
        return refer(buffer, offset, length, hasher.hash(buffer, offset, length),
            hasher.hashSlot(buffer, offset, length));
    }

    /**
     * Refer to bytes of a key hashed before ({@code hash} and {@code hashSlot} are that key's: the caller copied its
     * bytes here and kept its hashes); nothing is computed.
     */
    public HashedKey wrapHashed(final DirectBuffer buffer, final int offset, final int length, final long hash,
        final int hashSlot)
    {
        buffer.boundsCheck(offset, length);
        return refer(buffer, offset, length, hash, hashSlot);
    }

    private HashedKey refer(final DirectBuffer buffer, final int offset, final int length, final long hash,
        final int hashSlot)
    {
        this.buffer = buffer;
        this.offset = offset;
        this.length = length;
        this.hash = hash;
        this.hashSlot = hashSlot;
        return this;
    }

    /** The buffer the key's bytes are in. */
    public DirectBuffer buffer()
    {
        return buffer;
    }

    /** Where in {@link #buffer()} the key starts. */
    public int offset()
    {
        return offset;
    }

    /** The key's length in bytes. */
    public int length()
    {
        return length;
    }

    /** The 64-bit index hash (XXH64): buckets and fingerprint ({@link KeyHash}). */
    public long hash()
    {
        return hash;
    }

    /** The cluster slot, {@code 0..16383}: which node owns the key, and the store key's prefix. */
    public int hashSlot()
    {
        return hashSlot;
    }

    /** Whether the key's bytes equal the {@code length} bytes at {@code offset} of {@code other}. */
    public boolean sameBytes(final DirectBuffer other, final int otherOffset, final int otherLength)
    {
        if (otherLength != length)
        {
            return false;
        }
        for (int i = 0; i < length; i++)
        {
            if (buffer.getByte(offset + i) != other.getByte(otherOffset + i))
            {
                return false;
            }
        }
        return true;
    }

    /** A copy of the key's bytes. Allocates. */
    public byte[] copyBytes()
    {
        final byte[] bytes = new byte[length];
        buffer.getBytes(offset, bytes);
        return bytes;
    }

    @Override
    public String toString()
    {
        return "HashedKey{length=" + length + ", hash=" + Long.toHexString(hash) + ", hashSlot=" + hashSlot + '}';
    }
}
