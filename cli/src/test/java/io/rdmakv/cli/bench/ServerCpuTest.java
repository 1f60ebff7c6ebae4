package io.rdmakv.cli.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class ServerCpuTest
{
    @Test
    @Timeout(30)
    void shouldFindTheProcessListeningOnAPort() throws Exception
    {
        assumeTrue(java.nio.file.Files.isDirectory(java.nio.file.Path.of("/proc/net")), "no /proc: not Linux");
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            final OptionalLong pid = ServerCpu.pidListeningOn(socket.getLocalPort());
            assertEquals(OptionalLong.of(ProcessHandle.current().pid()), pid);
        }
    }

    @Test
    @Timeout(30)
    void shouldReadGrowingCpuTimeOfALiveProcessAndMinusOneForAMissingOne()
    {
        assumeTrue(java.nio.file.Files.isDirectory(java.nio.file.Path.of("/proc/self")), "no /proc: not Linux");
        final ServerCpu self = ServerCpu.of(ProcessHandle.current().pid());
        final long before = self.cpuNanos();
        assertTrue(before > 0, "this JVM has used CPU: " + before);
        // Spin until the count moves (the test's timeout bounds it): how much CPU a fixed wall time buys depends on
        // the machine's load.
        long sink = 0;
        while (self.cpuNanos() <= before)
        {
            for (int i = 0; i < 1_000_000; i++)
            {
                sink += Long.numberOfTrailingZeros(sink + i);
            }
        }
        assertTrue(self.cpuNanos() > before, "CPU time grows while spinning (" + sink + ")");
        assertEquals(-1, ServerCpu.of(Integer.MAX_VALUE).cpuNanos());
        assertEquals(OptionalLong.empty(), ServerCpu.pidListeningOn(1));
    }
}
