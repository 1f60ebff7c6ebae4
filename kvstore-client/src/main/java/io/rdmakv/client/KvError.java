package io.rdmakv.client;

/**
 * The stable code of every {@link KvException}: callers branch on it (or on the exception's subclass, which the code
 * determines). Never renumber or remove a code; new ones are appended.
 *
 * <pre>
 *   subclass                    codes
 *   KvTimeoutException          TIMED_OUT
 *   KvConnectionException       CONNECTION_FAILED, TRANSPORT_FAILED, REJECTED
 *   KvAuthenticationException   AUTHENTICATION_FAILED
 *   KvBackPressureException     BACK_PRESSURE
 *   KvServerException           KEY_TOO_LARGE, VALUE_TOO_LARGE, STORE_FULL, STORE_FAILED, SERVER_BUSY,
 *                               REQUEST_REFUSED, SERVER_ERROR, FORBIDDEN
 *   KvException (itself)        PROTOCOL_ERROR, TOO_MANY_REDIRECTS, CLOSED
 * </pre>
 */
public enum KvError
{
    /** No answer within the request timeout (counted from the call), or no connection within the connect timeout. */
    TIMED_OUT,
    /** No node could be reached, or the connection to the key's node was lost before the answer. */
    CONNECTION_FAILED,
    /** The transport failed the operation or could not open (the transport's reason is in the message). */
    TRANSPORT_FAILED,
    /** A node refused the handshake for a reason other than credentials (busy, protocol version): its message. */
    REJECTED,
    /** A node refused the credential (HELLO) or the session ticket (ATTACH). */
    AUTHENTICATION_FAILED,
    /**
     * The client's request queue was full ({@link KvClientBuilder#maxQueuedRequests(int)}): the asynchronous
     * request was not started. Retry later, or wait for outstanding futures first.
     */
    BACK_PRESSURE,
    /** The node answered that the key is longer than it allows. */
    KEY_TOO_LARGE,
    /** The node answered that the value is longer than it allows. */
    VALUE_TOO_LARGE,
    /**
     * The node's memory pool or store has no room for the value; a node whose disk is full (status DISK_FULL) refuses
     * PUTs this way until space is freed, and still serves DELETEs.
     */
    STORE_FULL,
    /** The node's durable store failed the operation. */
    STORE_FAILED,
    /** The node is busy: retry later. */
    SERVER_BUSY,
    /** The node could not serve the request as sent (malformed, unknown type or protocol version). */
    REQUEST_REFUSED,
    /** The node answered with an error this client does not know. */
    SERVER_ERROR,
    /** An increment of a value that is not a decimal int64, or whose result overflows (nothing was written). */
    NOT_AN_INTEGER,
    /** The peer sent something this client cannot decode. */
    PROTOCOL_ERROR,
    /** WRONG_NODE redirects went round more than {@link KvClientBuilder#maxRedirects(int)}. */
    TOO_MANY_REDIRECTS,
    /** The client was closed (or the calling thread interrupted while connecting). */
    CLOSED,
    /**
     * The node authenticated this client's user, but its role or key prefixes do not allow the request or command
     * (status FORBIDDEN); the message names the user and the role needed. Retrying fails the same way.
     */
    FORBIDDEN,
    /**
     * An atomic batch ({@link KvClient#writeBatch()}) names keys of more than one hash slot (Redis Cluster's
     * CROSSSLOT): refused whole, by this client before sending or by the node (status CROSSSLOT); nothing was written.
     * Give the keys one hash tag, {@code {tag}}.
     */
    CROSSSLOT
}
