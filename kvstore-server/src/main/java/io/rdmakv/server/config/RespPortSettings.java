package io.rdmakv.server.config;

import java.util.LinkedHashMap;
import java.util.Map;

import static io.rdmakv.server.config.SettingValues.intSetting;

/**
 * The RESP listener ({@code resp.*} settings): Redis clients talk to the node on {@code resp.port}; see
 * {@code docs/resp.md}. Off (0) by default.
 *
 * <pre>
 *   setting                 default  meaning
 *   resp.port               0        the RESP port; 0 = off
 *   resp.maxInlineBytes     65536    longest inline command (a line without *); longer: protocol error, close
 *   resp.maxArguments       1048576  most elements in one command array; more: protocol error, close
 *   resp.maxPendingReplies  1024     replies one connection may have waiting (pipelining) before it is not read
 * </pre>
 *
 * @param port              the RESP port, 0 = off.
 * @param maxInlineBytes    longest inline command.
 * @param maxArguments      most arguments of one command.
 * @param maxPendingReplies replies waiting per connection before reading pauses.
 */
public record RespPortSettings(int port, int maxInlineBytes, int maxArguments, int maxPendingReplies)
{
    /** The defaults, in the order the settings reference lists them. */
    public static final Map<String, String> DEFAULTS = defaults();

    static RespPortSettings parse(final Map<String, String> s)
    {
        return new RespPortSettings(intSetting(s, "resp.port", 0, 65_535),
            intSetting(s, "resp.maxInlineBytes", 64, 64 << 20),
            intSetting(s, "resp.maxArguments", 1, 1 << 24),
            intSetting(s, "resp.maxPendingReplies", 1, 1 << 20));
    }

    /** Whether the RESP listener is on. */
    public boolean enabled()
    {
        return port != 0;
    }

    private static Map<String, String> defaults()
    {
        final Map<String, String> m = new LinkedHashMap<>();
        m.put("resp.port", "0");
        m.put("resp.maxInlineBytes", "65536");
        m.put("resp.maxArguments", "1048576");
        m.put("resp.maxPendingReplies", "1024");
        return java.util.Collections.unmodifiableMap(m);
    }
}
