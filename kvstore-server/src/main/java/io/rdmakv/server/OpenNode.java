package io.rdmakv.server;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Whether a node runs open where others can reach it: bound to an address that is not loopback (the wildcard
 * included) with neither a shared secret nor a users file. Running open on loopback stays quiet.
 */
final class OpenNode
{
    private OpenNode()
    {
    }

    /** The WARN line for a node bound to {@code host} without a credential, or null when none is due. */
    static String warning(final String host, final boolean requiresCredential)
    {
        if (requiresCredential)
        {
            return null;
        }
        boolean loopback;
        try
        {
            loopback = InetAddress.getByName(host).isLoopbackAddress();
        }
        catch (final UnknownHostException ex)
        {
            loopback = false;
        }
        return loopback ? null : "this node is bound to " + host + ", which is not a loopback address, and " +
            "requires no credential: anyone who reaches its ports may read, write and run admin commands. Set " +
            "auth.secretFile (--secret-file) and/or auth.usersFile (docs/security.md)";
    }
}
