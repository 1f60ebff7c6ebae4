package io.rdmakv.transport.verbs;

/**
 * The 32-bit immediate value every verbs Send carries: the transport's own header, so that message payloads start at
 * offset 0 of a receive buffer and need no in-band framing.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-------------------------------+-+-+---------------------------+
 *  |   Credits returned (u16)      |M|C|         Reserved          |
 *  +-------------------------------+-+-+---------------------------+
 *  M (MORE): more fragments of this message follow (RC keeps them in order).
 *  C (CREDIT_ONLY): no payload; only returns credits and uses the peer's reserved receive.
 * </pre>
 *
 * The value is opaque to the HCA; both ends are this code, so it travels in host order.
 */
public final class ImmediateData
{
    public static final int MAX_CREDITS = 0xFFFF;
    public static final int FLAG_MORE = 1 << 16;
    public static final int FLAG_CREDIT_ONLY = 1 << 17;

    private ImmediateData()
    {
    }

    /**
     * @throws IllegalArgumentException if {@code credits} does not fit 16 bits.
     */
    public static int encode(final int credits, final boolean more, final boolean creditOnly)
    {
        if (credits < 0 || credits > MAX_CREDITS)
        {
            throw new IllegalArgumentException("credits out of range 0.." + MAX_CREDITS + ": " + credits);
        }
        return credits | (more ? FLAG_MORE : 0) | (creditOnly ? FLAG_CREDIT_ONLY : 0);
    }

    public static int credits(final int imm)
    {
        return imm & MAX_CREDITS;
    }

    public static boolean isMore(final int imm)
    {
        return (imm & FLAG_MORE) != 0;
    }

    public static boolean isCreditOnly(final int imm)
    {
        return (imm & FLAG_CREDIT_ONLY) != 0;
    }

    /** True when a reserved bit is set: the peer speaks another version of this protocol. */
    public static boolean hasUnknownBits(final int imm)
    {
        return (imm & ~(MAX_CREDITS | FLAG_MORE | FLAG_CREDIT_ONLY)) != 0;
    }
}
