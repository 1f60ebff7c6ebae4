package io.rdmakv.client;

/**
 * A value and its data version ({@link KvClient#getWithVersion}): the version names the write that stored the value,
 * is unique per key (never issued twice for a key, across restarts, failovers and resharding) and is what
 * {@link KvClient#replace} and {@link KvClient#delete(byte[], long)} compare with.
 *
 * @param value   the value's bytes.
 * @param version its data version.
 */
public record Versioned(byte[] value, long version)
{
}
