package io.rdmakv.it.softroce;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runs in the guest as the unprivileged user with a low memlock limit (guest-job.sh step 4) and proves the kernel
 * really enforces that limit on memory registration: the condition the memory pool's start-up check guards
 * against. Registering more than the limit must fail; registering well within it must work.
 */
@Tag(SoftRoceGuest.TAG)
@Tag(SoftRoceGuest.UNPRIVILEGED_TAG)
class UnprivilegedMemlockTest
{
    private static final Duration TOOL_TIMEOUT = Duration.ofSeconds(60);

    private static long memlockLimitBytes()
    {
        final String kib = System.getenv("RDMAKV_UNPRIVILEGED_MEMLOCK_KIB");
        assertTrue(kib != null && kib.matches("[0-9]+"),
            "RDMAKV_UNPRIVILEGED_MEMLOCK_KIB is not set: run this test through guest-job.sh");
        return Long.parseLong(kib) * 1024;
    }

    @Test
    void shouldRunWithoutRootAndWithoutCapabilities()
    {
        String uid = null;
        String effectiveCapabilities = null;
        for (final String line : SoftRoceGuest.readLines(Path.of("/proc/self/status")))
        {
            if (line.startsWith("Uid:"))
            {
                uid = line.split("\\s+")[1];
            }
            else if (line.startsWith("CapEff:"))
            {
                effectiveCapabilities = line.split("\\s+")[1];
            }
        }
        assertNotEquals("0", uid, "running as root: the memlock limit would not apply (CAP_IPC_LOCK)");
        assertEquals(0L, Long.parseLong(effectiveCapabilities, 16), "effective capabilities " + effectiveCapabilities);
    }

    @Test
    void shouldSeeTheMemlockLimitTheJobSet()
    {
        final String limits = SoftRoceGuest.readLines(Path.of("/proc/self/limits")).stream()
            .filter((line) -> line.startsWith("Max locked memory"))
            .findFirst()
            .orElseThrow();
        final String[] fields = limits.substring("Max locked memory".length()).trim().split("\\s+");
        assertEquals(Long.toString(memlockLimitBytes()), fields[0], limits);
        assertEquals(Long.toString(memlockLimitBytes()), fields[1], limits);
    }

    @Test
    @Timeout(90)
    void shouldRefuseToRegisterMoreThanTheMemlockLimit()
    {
        // The server side registers its buffer before it listens, so it fails (or not) without any peer.
        final long size = 8 * memlockLimitBytes();
        final GuestProcess.Result server = GuestProcess.run(TOOL_TIMEOUT, "ibv_rc_pingpong", "-d",
            SoftRoceGuest.DEVICE, "-g", Integer.toString(SoftRoceGuest.GID_INDEX), "-p", "18700",
            "-s", Long.toString(size), "-n", "1");

        assertTrue(!server.timedOut() && server.exitCode() != 0, server::describe);
        assertTrue(server.output().contains("Couldn't register MR"), server::describe);
    }

    @Test
    @Timeout(120)
    void shouldRegisterAndTransferWithinTheMemlockLimit() throws InterruptedException
    {
        final int port = 18701;
        final long size = memlockLimitBytes() / 8;
        final String[] args = {
            "ibv_rc_pingpong", "-d", SoftRoceGuest.DEVICE, "-g", Integer.toString(SoftRoceGuest.GID_INDEX),
            "-p", Integer.toString(port), "-s", Long.toString(size), "-n", "2"};

        try (GuestProcess server = GuestProcess.start(args))
        {
            SoftRoceEnvironmentTest.awaitTcpListener(server, port);
            final GuestProcess.Result client =
                GuestProcess.run(TOOL_TIMEOUT, SoftRoceEnvironmentTest.append(args, SoftRoceGuest.IP));
            final GuestProcess.Result serverResult = server.await(TOOL_TIMEOUT);

            assertEquals(0, client.exitCode(), client::describe);
            assertEquals(0, serverResult.exitCode(), serverResult::describe);
            assertTrue(client.output().contains("2 iters in"), client::describe);
        }
    }
}
