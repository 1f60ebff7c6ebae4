package io.rdmakv.client;

/**
 * A key and its value, as range and prefix reads ({@link KvClient#range}, {@link KvClient#prefix}) return them.
 *
 * @param key   the key's bytes.
 * @param value the value's bytes.
 */
public record KvEntry(byte[] key, byte[] value)
{
}
