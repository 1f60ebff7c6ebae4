package io.rdmakv.protocol.wire;

import java.util.Arrays;

/**
 * Operator to node: one cluster administration command (status, failover, moves); the node answers with one
 * {@link AdminReply} and closes. Guarded by the same credential as HELLO.
 *
 * <pre>
 *  +---------------------------------------------------------------+
 *  |                  Control frame header (8 B, type ADMIN)      ...  0
 *  +-------------------------------+-------------------------------+
 *  |  Credential length (u16)      |  Credential (opaque)         ...  8
 *  +-------------------------------+-------------------------------+
 *  |  Command length (u16)         |  Command (UTF-8 words)       ...
 *  +-------------------------------+-------------------------------+
 * </pre>
 *
 * @param credential the shared secret, or empty.
 * @param command    words separated by spaces, e.g. {@code status json} or {@code failover 0 2}.
 */
public record Admin(byte[] credential, String command) implements ControlFrame
{
    public Admin
    {
        credential = credential.clone();
    }

    @Override
    public int frameType()
    {
        return TYPE_ADMIN;
    }

    @Override
    public byte[] credential()
    {
        return credential.clone();
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof Admin a && Arrays.equals(a.credential, credential) && a.command.equals(command);
    }

    @Override
    public int hashCode()
    {
        return 31 * Arrays.hashCode(credential) + command.hashCode();
    }

    @Override
    public String toString()
    {
        return "Admin{command=" + command + ", credential=" + credential.length + " bytes}";
    }
}
