package io.rdmakv.client;

/**
 * What kind of failure a {@link KvException} reports. Stable: never renumber or remove.
 */
public enum KvError
{
    /** The server answered with an error status; {@link KvException#status()} says which. */
    SERVER_STATUS,
    /** The server refused the handshake (REJECT); the message is the server's. */
    REJECTED,
    /** No answer within the request (or connect) timeout. */
    TIMED_OUT,
    /** No node could be reached, or the connection to one was lost before the answer. */
    CONNECTION_FAILED,
    /** The transport failed the operation (its {@link io.rdmakv.transport.TransportStatus} is in the message). */
    TRANSPORT_FAILED,
    /** The peer sent something this client cannot decode. */
    PROTOCOL_ERROR,
    /** WRONG_NODE redirects went round more than the configured bound. */
    TOO_MANY_REDIRECTS,
    /** The client was closed. */
    CLOSED
}
