package io.rdmakv.server.config;

import java.util.List;

/**
 * Settings of the RESP listener, where Redis clients talk to the node ({@code resp.*}, read into
 * {@link RespPortSettings}; see {@code docs/resp.md}). Each is declared once here; see {@link Setting}.
 */
public final class RespKeys
{
    public static final Setting<Integer> PORT = NetworkKeys.port("resp.port", 0, 0, "the RESP port: Redis clients " +
        "(RESP2, RESP3 by HELLO 3) on host:port, served by the node's own request handling (docs/resp.md); 0 = off");

    public static final Setting<Integer> MAX_INLINE_BYTES = Setting.whole("resp.maxInlineBytes", "bytes", 65_536, 64,
        64 << 20, "longest inline RESP command (a line not starting with *); longer: -ERR Protocol error and the " +
            "connection is closed");

    public static final Setting<Integer> MAX_ARGUMENTS = Setting.whole("resp.maxArguments", "int", 1 << 20, 1,
        1 << 24, "most elements in one RESP command array; more: -ERR Protocol error and the connection is closed");

    public static final Setting<Integer> MAX_PENDING_REPLIES = Setting.whole("resp.maxPendingReplies", "int", 1024, 1,
        1 << 20, "replies one RESP connection may have waiting (pipelined commands not answered yet) before the " +
            "node stops reading it until they are written");

    /** In the order {@code --list-settings} shows them. */
    static final List<Setting<?>> ALL = List.of(PORT, MAX_INLINE_BYTES, MAX_ARGUMENTS, MAX_PENDING_REPLIES);

    private RespKeys()
    {
    }
}
