package io.rdmakv.transport.select;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Which kernel and network namespace this process runs in: {@code boot_id:net:[inode]}. Two processes with the same
 * identity reach each other's abstract Unix sockets (which are per network namespace) and share memory files, so a
 * host-local transport ({@code shm}) between them works; a different boot id is another machine (or a reboot), a
 * different namespace another container. A node advertises it with its host-local transports and a client compares it
 * with its own before choosing one. It is not a credential: the connection still has to present the node's session
 * ticket.
 */
public final class HostIdentity
{
    private static final Path BOOT_ID = Path.of("/proc/sys/kernel/random/boot_id");
    private static final Path NET_NAMESPACE = Path.of("/proc/self/ns/net");
    private static final String CURRENT = read(BOOT_ID, NET_NAMESPACE);

    private HostIdentity()
    {
    }

    /**
     * This process's identity.
     *
     * @return {@code boot_id:net:[inode]}, or empty when /proc does not tell (then no host-local transport is chosen).
     */
    public static String current()
    {
        return CURRENT;
    }

    /**
     * Whether a peer that advertised {@code identity} is on this host, in this network namespace.
     *
     * @param identity the peer's identity, possibly empty.
     * @return true only for a non-empty identity equal to this process's.
     */
    public static boolean isThisHost(final String identity)
    {
        return !CURRENT.isEmpty() && CURRENT.equals(identity);
    }

    static String read(final Path bootId, final Path netNamespace)
    {
        try
        {
            return Files.readString(bootId, StandardCharsets.US_ASCII).trim() + ":" +
                Files.readSymbolicLink(netNamespace);
        }
        catch (final IOException | UnsupportedOperationException | SecurityException ex)
        {
            return "";
        }
    }
}
