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
 *  |   SCRAM length (u16)          |  SCRAM client-first message  ...   only when a user logs in
 *  +-------------------------------+-------------------------------+
 * </pre>
 *
 * A HELLO with a SCRAM client-first message ({@code n,,n=user,r=nonce}) starts a SCRAM-SHA-256 exchange
 * ({@link ScramMessage}) before the WELCOME; without one (the field absent, as older clients send it) the credential
 * is the cluster's shared secret, or empty.
 *
 * @param protocolVersion the version the client speaks (from the frame header).
 * @param transports      transports the client can use, in order of preference (at most 255, each 1..32 bytes).
 * @param credential      opaque credential bytes, possibly empty (at most 65535).
 * @param scramFirst      the SCRAM client-first message (UTF-8), or empty.
 */
public record Hello(int protocolVersion, List<String> transports, byte[] credential, byte[] scramFirst)
    implements ControlFrame
{
    public Hello
    {
        transports = List.copyOf(transports);
        credential = credential.clone();
        scramFirst = scramFirst.clone();
    }

    /** A HELLO with the shared secret (or nothing) and no user. */
    public Hello(final int protocolVersion, final List<String> transports, final byte[] credential)
    {
        this(protocolVersion, transports, credential, new byte[0]);
    }

    /** This HELLO starting a SCRAM exchange with {@code clientFirst}. */
    public Hello withScram(final String clientFirst)
    {
        return new Hello(protocolVersion, transports, credential,
            clientFirst.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    @Override
    public byte[] scramFirst()
    {
        return scramFirst.clone();
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
            Arrays.equals(h.credential, credential) && Arrays.equals(h.scramFirst, scramFirst);
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
            credential.length + " bytes" + (scramFirst.length > 0 ? ", SCRAM" : "") + "}";
    }
}
