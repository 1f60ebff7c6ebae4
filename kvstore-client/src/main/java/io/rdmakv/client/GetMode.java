package io.rdmakv.client;

/**
 * How a {@link KvClient} serves GETs.
 */
public enum GetMode
{
    /**
     * By capability: one-sided reads when the transport reads natively (verbs),
     * RPC when one-sided reads would only be emulated (an emulated read costs the server as much as an RPC and needs
     * two round trips instead of one).
     */
    AUTO,
    /** Always one-sided (falls back to RPC only as the protocol says: torn reads beyond the retry bound, misses). */
    ONE_SIDED,
    /** Always two-sided GET requests to the server. */
    RPC;

    /**
     * Parse {@code auto}, {@code one-sided} or {@code rpc} (case-insensitive; {@code _} accepted for {@code -}).
     *
     * @param text the mode as an operator types it.
     * @return the mode.
     * @throws IllegalArgumentException naming the accepted forms when {@code text} is none of them.
     */
    public static GetMode parse(final String text)
    {
        final String t = text.trim().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
        switch (t)
        {
            case "auto":
                return AUTO;
            case "one-sided":
            case "onesided":
                return ONE_SIDED;
            case "rpc":
                return RPC;
            default:
                throw new IllegalArgumentException("unknown get mode '" + text + "'; expected auto, one-sided or rpc");
        }
    }
}
