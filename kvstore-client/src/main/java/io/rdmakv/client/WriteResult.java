package io.rdmakv.client;

/**
 * What a conditional write did ({@link KvClient#putIfAbsent}, {@link KvClient#replace},
 * {@link KvClient#delete(byte[], long)}): applied, with the data version it wrote (0 for a delete), or refused because
 * its condition did not hold, with the key's present data version (0: absent). A refusal is an answer, not an error:
 * nothing was written.
 *
 * @param applied whether the write took effect.
 * @param version applied: the new data version (0 for a delete); refused: the present one (0 when absent).
 */
public record WriteResult(boolean applied, long version)
{
    /** An applied write of {@code version}. */
    public static WriteResult applied(final long version)
    {
        return new WriteResult(true, version);
    }

    /** A refused write; the key's present version ({@code 0}: absent). */
    public static WriteResult refused(final long presentVersion)
    {
        return new WriteResult(false, presentVersion);
    }
}
