package io.rdmakv.protocol.wire;

/**
 * Node to operator: the answer to an {@link Admin} command.
 *
 * <pre>
 *  +---------------+-----------------------------------------------+
 *  |  OK (u8 0/1)  |  Text length (u16) | Text (UTF-8)            ...  8
 *  +---------------+-----------------------------------------------+
 * </pre>
 *
 * @param ok   whether the command was carried out.
 * @param text the result (status as text or JSON), or why not.
 */
public record AdminReply(boolean ok, String text) implements ControlFrame
{
    @Override
    public int frameType()
    {
        return TYPE_ADMIN_REPLY;
    }
}
