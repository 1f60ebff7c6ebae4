package io.rdmakv.client;

import io.rdmakv.transport.TransportCapabilities;
import io.rdmakv.transport.TransportCapability;

/**
 * How a {@link KvClient} serves GETs.
 */
public enum GetMode
{
    /**
     * By capability: one-sided reads when the transport reads natively ({@link TransportCapability#READ_NATIVE}),
     * RPC when one-sided reads would only be emulated (an emulated read costs the server as much as an RPC and needs
     * two round trips instead of one).
     */
    AUTO,
    /** Always one-sided (falls back to RPC only as the protocol says: torn reads beyond the retry bound, misses). */
    ONE_SIDED,
    /** Always two-sided GET requests to the server. */
    RPC;

    /** Resolve {@link #AUTO} against what the transport can do; the forced modes stay as they are. */
    public GetMode resolve(final TransportCapabilities capabilities)
    {
        if (this != AUTO)
        {
            if (this == ONE_SIDED && !capabilities.canRead())
            {
                throw new IllegalArgumentException(
                    "get mode one-sided was requested but the transport cannot read one-sided at all");
            }
            return this;
        }
        return capabilities.has(TransportCapability.READ_NATIVE) ? ONE_SIDED : RPC;
    }

    /** Parse {@code auto}, {@code one-sided} or {@code rpc} (case-insensitive; {@code _} accepted for {@code -}). */
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
