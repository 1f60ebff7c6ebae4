package io.rdmakv.protocol.wire;

import java.util.Arrays;
import java.util.List;

/**
 * Client to server, first frame on a control connection.
 *
 * <pre>
 *  +---------------------------------------------------------------+
 *  |                  Control frame header (8 B, type HELLO)      ...  0
 *  +---------------+-----------------------------------------------+
 *  | Transport cnt |  per transport: str8 name ("verbs", "tcp")   ...  8
 *  +---------------+---------------+-------------------------------+
 *  |   Credential length (u16)     |  Credential bytes (opaque)   ...
 *  +-------------------------------+-------------------------------+
 * </pre>
 *
 * @param protocolVersion the version the client speaks (from the frame header).
 * @param transports      transports the client can use, in order of preference (at most 255, each 1..32 bytes).
 * @param credential      opaque credential bytes, possibly empty (at most 65535).
 */
public record Hello(int protocolVersion, List<String> transports, byte[] credential) implements ControlFrame
{
    public Hello
    {
        transports = List.copyOf(transports);
        credential = credential.clone();
    }

    @Override
    public int frameType()
    {
        return TYPE_HELLO;
    }

    @Override
    public byte[] credential()
    {
        return credential.clone();
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof Hello h && h.protocolVersion == protocolVersion && h.transports.equals(transports) &&
            Arrays.equals(h.credential, credential);
    }

    @Override
    public int hashCode()
    {
        return 31 * (31 * protocolVersion + transports.hashCode()) + Arrays.hashCode(credential);
    }

    @Override
    public String toString()
    {
        // Never print the credential.
        return "Hello{version=" + protocolVersion + ", transports=" + transports + ", credential=" +
            credential.length + " bytes}";
    }
}
