package io.rdmakv.server.resp;

import io.rdmakv.server.admission.CredentialThrottle;
import io.rdmakv.server.session.UsersDirectory;

/**
 * The RESP listener's settings, from the node's.
 *
 * @param host            bind address (the node's {@code host}).
 * @param port            {@code resp.port}; 0 = off.
 * @param maxKeyBytes     {@code limits.maxKeyBytes}: a longer key is refused with {@code -ERR}.
 * @param maxValueBytes   {@code limits.maxValueBytes}: a longer value is refused with {@code -ERR}; a bulk string longer
 *                        than this (or than the key limit, when larger) is a protocol error: {@code -ERR} and close.
 * @param maxInlineBytes  {@code resp.maxInlineBytes}: longest inline command line (a protocol error beyond).
 * @param maxArguments    {@code resp.maxArguments}: most elements in one command array (a protocol error beyond).
 * @param maxPendingReplies {@code resp.maxPendingReplies}: replies one connection may have waiting before the listener
 *                        stops reading it (pipelining is bounded, never buffered without limit).
 * @param secret          {@code auth.secret}, or null: connections must AUTH (or HELLO ... AUTH) first.
 * @param users           {@code auth.usersFile}'s users, or null: with users, connections must AUTH first too, and
 *                        {@code AUTH user password} logs in as one of them (its role and key prefixes apply).
 * @param loginThrottle   the failed-login throttle of {@code AUTH user password} (a PBKDF2 per try), per source
 *                        address ({@code auth.failedCredentialBurst}, {@code auth.failedCredentialIntervalMs}); only
 *                        the listener's one event loop touches it.
 */
public record RespSettings(String host, int port, int maxKeyBytes, int maxValueBytes, int maxInlineBytes,
    int maxArguments, int maxPendingReplies, byte[] secret, UsersDirectory users, CredentialThrottle loginThrottle)
{
    /** Whether a connection must authenticate before its first command. */
    public boolean requiresAuth()
    {
        return secret != null || users != null;
    }

    /** The longest bulk string a command may carry. */
    public int maxBulkBytes()
    {
        return Math.max(maxKeyBytes, maxValueBytes);
    }
}
