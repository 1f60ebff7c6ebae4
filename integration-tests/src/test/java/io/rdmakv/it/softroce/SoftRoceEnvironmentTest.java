package io.rdmakv.it.softroce;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Proves RDMA is real in the SoftRoCE guest before any rdmakv code is blamed: the verbs device node exists, rxe0's
 * port is active with a RoCE v2 IPv4 GID at the expected index, and two processes exchange RC traffic through
 * rxe0, both over a TCP-exchanged QP (ibv_rc_pingpong) and over rdma_cm (rping). Runs as root in the guest.
 */
@Tag(SoftRoceGuest.TAG)
class SoftRoceEnvironmentTest
{
    private static final Duration TOOL_TIMEOUT = Duration.ofSeconds(60);

    @Test
    void shouldExposeTheVerbsDeviceNodes()
    {
        final Path uverbs = Path.of("/dev/infiniband/uverbs0");
        assertTrue(Files.exists(uverbs), "no " + uverbs + ": ib_uverbs not loaded or no rxe device");
        assertTrue(Files.isReadable(uverbs) && Files.isWritable(uverbs), uverbs + " is not read/write");
        assertTrue(Files.exists(Path.of("/dev/infiniband/rdma_cm")), "no rdma_cm device: rdma_ucm not loaded");
    }

    @Test
    @Timeout(60)
    void shouldReportAnActiveEthernetPort()
    {
        final GuestProcess.Result devinfo = GuestProcess.run(TOOL_TIMEOUT, "ibv_devinfo", "-d", SoftRoceGuest.DEVICE);
        assertEquals(0, devinfo.exitCode(), devinfo::describe);
        assertTrue(devinfo.output().contains("hca_id:\t" + SoftRoceGuest.DEVICE), devinfo::describe);
        assertTrue(devinfo.output().matches("(?s).*state:\\s+PORT_ACTIVE.*"), devinfo::describe);
        assertTrue(devinfo.output().matches("(?s).*link_layer:\\s+Ethernet.*"), devinfo::describe);
    }

    @Test
    void shouldCarryTheGuestIpv4AddressAsRoceV2GidAtTheConfiguredIndex()
    {
        // 10.0.2.15 as an IPv4-mapped IPv6 GID: ::ffff:0a00:020f
        final String[] octets = SoftRoceGuest.IP.split("\\.");
        final String expected = String.format("0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x",
            Integer.parseInt(octets[0]), Integer.parseInt(octets[1]),
            Integer.parseInt(octets[2]), Integer.parseInt(octets[3]));

        assertEquals(expected, SoftRoceGuest.gid(SoftRoceGuest.GID_INDEX));
        assertEquals("RoCE v2", SoftRoceGuest.gidType(SoftRoceGuest.GID_INDEX));
    }

    @Test
    @Timeout(120)
    void shouldExchangeRcTrafficWithIbvRcPingpong() throws InterruptedException
    {
        final int port = 18600;
        final int iterations = 20;
        final long sentBefore = SoftRoceGuest.portCounter("sent_pkts");
        final String[] args = {
            "ibv_rc_pingpong", "-d", SoftRoceGuest.DEVICE, "-g", Integer.toString(SoftRoceGuest.GID_INDEX),
            "-p", Integer.toString(port), "-n", Integer.toString(iterations), "-s", "4096"};

        try (GuestProcess server = GuestProcess.start(args))
        {
            awaitTcpListener(server, port);
            final GuestProcess.Result client = GuestProcess.run(TOOL_TIMEOUT, append(args, SoftRoceGuest.IP));
            final GuestProcess.Result serverResult = server.await(TOOL_TIMEOUT);

            assertEquals(0, client.exitCode(), client::describe);
            assertEquals(0, serverResult.exitCode(), serverResult::describe);
            assertTrue(client.output().contains(iterations + " iters in"), client::describe);
        }
        // Both directions went through rxe0: at least one packet per message per side.
        final long sent = SoftRoceGuest.portCounter("sent_pkts") - sentBefore;
        assertTrue(sent >= 2L * iterations, "rxe0 sent only " + sent + " packets for " + iterations + " round trips");
    }

    @Test
    @Timeout(120)
    void shouldConnectAndPingThroughRdmaCm() throws InterruptedException
    {
        final String port = "7174";
        try (GuestProcess server = GuestProcess.start("rping", "-s", "-a", SoftRoceGuest.IP, "-p", port, "-C", "5",
            "-V"))
        {
            // rdma_cm listeners do not show in /proc/net/tcp: retry the client until the server is listening.
            GuestProcess.Result client = null;
            final long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < deadline && server.isAlive())
            {
                client = GuestProcess.run(TOOL_TIMEOUT, "rping", "-c", "-a", SoftRoceGuest.IP, "-p", port, "-C", "5",
                    "-v", "-V");
                if (client.exitCode() == 0)
                {
                    break;
                }
                Thread.sleep(500);
            }
            final GuestProcess.Result serverResult = server.await(TOOL_TIMEOUT);

            assertTrue(client != null, "the rping server exited before any client ran: " + serverResult.describe());
            assertEquals(0, client.exitCode(), client::describe);
            assertEquals(0, serverResult.exitCode(), serverResult::describe);
            // -v prints one "ping data" line per iteration; -V made both sides compare the data they received
            assertEquals(5, client.output().lines().filter((line) -> line.contains("ping data")).count(),
                client::describe);
        }
    }

    static void awaitTcpListener(final GuestProcess server, final int port) throws InterruptedException
    {
        final long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!SoftRoceGuest.isTcpListening(port))
        {
            assertTrue(server.isAlive(), () -> "server exited before listening:\n" + server.output());
            assertFalse(System.nanoTime() > deadline, () -> "server never listened on " + port + ":\n" +
                server.output());
            Thread.sleep(50);
        }
    }

    static String[] append(final String[] args, final String last)
    {
        final String[] result = java.util.Arrays.copyOf(args, args.length + 1);
        result[args.length] = last;
        return result;
    }
}
