package io.rdmakv.protocol.wire;

import io.rdmakv.protocol.ErrorCode;
import io.rdmakv.protocol.ProtocolException;

import java.util.Arrays;

/**
 * The value of an OK answer to {@link MessageType#ATTACH_REQUEST}: empty, or the packed remote key of the memory
 * window the node bound for this endpoint alone (issue 33 item 3). A node whose main transport has memory windows
 * sends an empty remote key in its WELCOME for that transport and hands each data endpoint its own window's key
 * here, so the pool's key never leaves the node and a key dies with its session. An empty value: no window (tcp, shm,
 * windows off, or the bind failed), the client reads with the WELCOME's key, or by RPC when that is empty too.
 *
 * <pre>
 *   value of the RESPONSE (OK):
 *   +---------------+-----------------------------------------------+
 *   |  Kind (u8) 1  |  packed remote key of the window (32 B today) |
 *   +---------------+-----------------------------------------------+
 *   empty = no window; any other kind is refused (MALFORMED): a newer node would not send one to this client
 * </pre>
 *
 * Control path (once per data connection): allocates.
 */
public final class AttachAnswer
{
    /** The value's first byte: what follows is a window's packed remote key. */
    public static final int KIND_WINDOW_KEY = 1;
    /** Longest packed key accepted (the WELCOME's bound for a transport's key). */
    public static final int MAX_KEY_LENGTH = 0xFFFF;

    private AttachAnswer()
    {
    }

    /**
     * The value of an answer that hands {@code packedKey} over.
     *
     * @param packedKey the window's packed remote key, 1 to {@link #MAX_KEY_LENGTH} bytes.
     * @return the bytes to send as the OK answer's value.
     */
    public static byte[] windowKey(final byte[] packedKey)
    {
        if (packedKey.length == 0 || packedKey.length > MAX_KEY_LENGTH)
        {
            throw new IllegalArgumentException("a window key of " + packedKey.length + " bytes (1 to " +
                MAX_KEY_LENGTH + ")");
        }
        final byte[] value = new byte[1 + packedKey.length];
        value[0] = (byte)KIND_WINDOW_KEY;
        System.arraycopy(packedKey, 0, value, 1, packedKey.length);
        return value;
    }

    /**
     * The window key an OK answer to ATTACH carries.
     *
     * @param response a validated OK RESPONSE to ATTACH.
     * @return the packed key, or null when the answer carries none (an empty value: no window for this endpoint).
     * @throws ProtocolException {@link ErrorCode#MALFORMED} for a value that is not a window key.
     */
    public static byte[] windowKey(final ResponseFlyweight response)
    {
        final int length = response.valueLength();
        if (length == 0)
        {
            return null;
        }
        final byte[] value = response.value();
        if ((value[0] & 0xFF) != KIND_WINDOW_KEY || value.length == 1 || value.length - 1 > MAX_KEY_LENGTH)
        {
            throw new ProtocolException(ErrorCode.MALFORMED, "the ATTACH answer's value is no window key (kind " +
                (value[0] & 0xFF) + ", " + value.length + " bytes)");
        }
        return Arrays.copyOfRange(value, 1, value.length);
    }
}
