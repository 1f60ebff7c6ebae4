package io.rdmakv.server.config;

import java.util.Map;

/**
 * The RESP listener ({@code resp.*} settings): Redis clients talk to the node on {@code resp.port}; see
 * {@code docs/resp.md}. Off (0) by default.
 *
 * <p>Each setting (name, default, bounds, meaning) is declared once in {@link RespKeys}.
 *
 * @param port              the RESP port, 0 = off.
 * @param maxInlineBytes    longest inline command.
 * @param maxArguments      most arguments of one command.
 * @param maxPendingReplies replies waiting per connection before reading pauses.
 */
public record RespPortSettings(int port, int maxInlineBytes, int maxArguments, int maxPendingReplies)
{
    static RespPortSettings parse(final Map<String, String> s)
    {
        return new RespPortSettings(RespKeys.PORT.get(s), RespKeys.MAX_INLINE_BYTES.get(s),
            RespKeys.MAX_ARGUMENTS.get(s), RespKeys.MAX_PENDING_REPLIES.get(s));
    }

    /** Whether the RESP listener is on. */
    public boolean enabled()
    {
        return port != 0;
    }
}
