package io.rdmakv.protocol.wire;

/**
 * Server to client instead of {@link Welcome}; the server closes the connection after sending it.
 *
 * <pre>
 *  +---------------------------------------------------------------+
 *  |                  Control frame header (8 B, type REJECT)     ...  0
 *  +-------------------------------+-------------------------------+
 *  |        Status code (u16)      |    Message length (u16)       |  8
 *  +-------------------------------+-------------------------------+
 *  |                  Message (UTF-8)                             ...  12
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * @param status  why ({@link Status#UNSUPPORTED_VERSION}, {@link Status#UNAUTHENTICATED}, ...).
 * @param message a human-readable reason.
 */
public record Reject(Status status, String message) implements ControlFrame
{
    @Override
    public int frameType()
    {
        return TYPE_REJECT;
    }
}
