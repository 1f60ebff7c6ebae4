package io.rdmakv.protocol.wire;

/**
 * A control-plane handshake frame, carried by Netty behind a u32 length prefix and encoded by
 * {@link ControlFrameCodec}. Every frame starts with the same 8-byte header:
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                  Magic "RKVC" (4 ASCII bytes)                 |  0
 *  +-------------------------------+---------------+---------------+
 *  |   Protocol version (u16)      |  Frame type   |   Reserved    |  4
 *  +-------------------------------+---------------+---------------+
 *  |                  Body (per type) ...                         ...  8
 *  little-endian; whole frame at most ProtocolLimits.MAX_CONTROL_FRAME_LENGTH (64 KiB)
 * </pre>
 *
 * Strings are UTF-8 behind a u8 length ("str8"); opaque blobs are behind a u16 length ("blob16").
 */
public sealed interface ControlFrame permits Hello, Welcome, Reject, Admin, AdminReply, ScramMessage
{
    int TYPE_HELLO = 1;
    int TYPE_WELCOME = 2;
    int TYPE_REJECT = 3;
    int TYPE_ADMIN = 4;
    int TYPE_ADMIN_REPLY = 5;
    /** A SCRAM-SHA-256 message (challenge, proof, server-final) between a HELLO that names a user and its WELCOME. */
    int TYPE_SCRAM = 6;

    /** The frame type code written in the header. */
    int frameType();
}
