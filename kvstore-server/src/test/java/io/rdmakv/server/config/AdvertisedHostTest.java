package io.rdmakv.server.config;

import io.rdmakv.server.config.AdvertisedHost.InterfaceAddress;
import io.rdmakv.server.config.AdvertisedHost.InterfaceSource;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node never advertises a loopback address because it was bound to a wildcard (issue 30): it picks an interface
 * address, or, with nothing but loopback up, advertises 127.0.0.1 with a warning naming {@code advertised.host}. Interfaces injected; nothing here reads the machine's.
 */
class AdvertisedHostTest
{
    private static final InterfaceAddress LO4 = address("lo", 1, true, true, "127.0.0.1");
    private static final InterfaceAddress LO6 = address("lo", 1, true, true, "::1");
    /** What getLocalHost() answers on stock Debian/Ubuntu; here as if some interface carried it. */
    private static final InterfaceAddress DEBIAN_HOSTNAME = address("lo", 1, true, true, "127.0.1.1");
    private static final InterfaceAddress ETH4 = address("eth0", 2, true, false, "192.0.2.7");
    private static final InterfaceAddress ETH6 = address("eth0", 2, true, false, "2001:db8::7");
    private static final InterfaceAddress ETH6_LINK_LOCAL = address("eth0", 2, true, false, "fe80::1");

    @Test
    void shouldAdvertiseLoopbackWithAWarningNamingTheFixWhenNothingElseIsUp()
    {
        final AdvertisedHost.Choice c =
            AdvertisedHost.choose("0.0.0.0", null, source(LO4, LO6, DEBIAN_HOSTNAME, ETH6_LINK_LOCAL));
        assertEquals("127.0.0.1", c.host(), "never 127.0.1.1 (the host name's): the loopback only this machine uses");
        assertTrue(c.loopbackOnly(), "the node warns");
        final String message = c.reason();
        assertTrue(message.contains("advertised.host") && message.contains("--advertised-host"), message);
        assertTrue(message.contains("host=0.0.0.0 is a wildcard"), message);
        assertTrue(message.contains("lo 127.0.0.1"), "says what it saw: " + message);
        assertTrue(AdvertisedHost.choose("::", null, source()).loopbackOnly());
    }

    @Test
    void shouldAdvertiseTheEthernetAddressOfAWildcardNodeIpv4First()
    {
        final AdvertisedHost.Choice c = AdvertisedHost.choose("0.0.0.0", null,
            source(ETH6_LINK_LOCAL, ETH6, LO4, DEBIAN_HOSTNAME, ETH4));
        assertEquals("192.0.2.7", c.host());
        assertTrue(c.picked());
        assertTrue(c.reason().contains("192.0.2.7 of eth0") && c.reason().contains("advertised.host"), c.reason());
        assertEquals(ETH6.address().getHostAddress(), AdvertisedHost.choose("::", null, source(LO6, ETH6_LINK_LOCAL, ETH6)).host(),
            "IPv6 when no interface has IPv4, never link-local");
    }

    @Test
    void shouldSkipInterfacesThatAreDownAndTakeTheFirstByIndex()
    {
        final InterfaceAddress down = address("eth0", 2, false, false, "192.0.2.1");
        final InterfaceAddress docker = address("docker0", 5, true, false, "172.17.0.1");
        final InterfaceAddress eth1 = address("eth1", 3, true, false, "198.51.100.4");
        assertEquals("198.51.100.4", AdvertisedHost.choose("0.0.0.0", null, source(docker, down, eth1, LO4))
            .host());
    }

    @Test
    void shouldLetAnExplicitAdvertisedHostWinLoopbackIncluded()
    {
        final AdvertisedHost.Choice c = AdvertisedHost.choose("0.0.0.0", " node1.example ", source(LO4));
        assertEquals("node1.example", c.host());
        assertFalse(c.picked());
        assertEquals("127.0.0.1", AdvertisedHost.choose("0.0.0.0", "127.0.0.1", source()).host(),
            "the operator's choice, even loopback, even with no interface");
    }

    @Test
    void shouldAdvertiseTheBindAddressOfANodeBoundToLoopback()
    {
        final InterfaceSource unread = () ->
        {
            throw new AssertionError("a node bound to an address reads no interfaces");
        };
        final AdvertisedHost.Choice c = AdvertisedHost.choose("127.0.0.1", null, unread);
        assertEquals("127.0.0.1", c.host());
        assertFalse(c.picked());
        assertEquals("10.1.2.3", AdvertisedHost.choose("10.1.2.3", null, unread).host());
    }

    @Test
    void shouldWireTheChoiceIntoTheNodesAddresses()
    {
        final Map<String, String> s = new HashMap<>();
        s.put("host", "0.0.0.0");
        s.put("control.port", "7400");
        s.put("data.port", "7401");
        s.put("data.tcpPort", "0");
        s.put("data.shmPort", "0");
        final NodeAddresses wildcard = new NodeAddresses(s, source(LO4, ETH4));
        assertEquals("192.0.2.7", wildcard.advertisedHost());
        assertTrue(wildcard.advertisedHostPicked());
        final NodeAddresses loopbackOnly = new NodeAddresses(s, source(LO4, DEBIAN_HOSTNAME));
        assertEquals("127.0.0.1", loopbackOnly.advertisedHost());
        assertTrue(loopbackOnly.advertisedLoopbackOnly(), "warned");
        s.put("host", "127.0.0.1");
        assertEquals("127.0.0.1", new NodeAddresses(s, source(LO4)).advertisedHost());
    }

    private static InterfaceSource source(final InterfaceAddress... addresses)
    {
        return () -> List.of(addresses);
    }

    private static InterfaceAddress address(final String name, final int index, final boolean up,
        final boolean loopback, final String literal)
    {
        try
        {
            return new InterfaceAddress(name, index, up, loopback, InetAddress.getByName(literal));
        }
        catch (final UnknownHostException ex)
        {
            throw new AssertionError(ex);
        }
    }
}
