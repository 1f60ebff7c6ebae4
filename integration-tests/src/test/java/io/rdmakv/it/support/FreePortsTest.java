package io.rdmakv.it.support;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FreePortsTest
{
    @Test
    void shouldHandOutDistinctBindablePortsBelowTheEphemeralRange() throws IOException
    {
        final int[] ports = FreePorts.take(30);
        assertEquals(30, Arrays.stream(ports).distinct().count(), Arrays.toString(ports));
        final int low = FreePorts.ephemeralLow();
        for (final int port : ports)
        {
            if (low - FreePorts.FLOOR >= 1_000)
            {
                // No outgoing connection can be given one of them as its source port.
                assertTrue(port >= FreePorts.FLOOR && port < low, port + " outside [" + FreePorts.FLOOR + ", " + low +
                    ")");
            }
            try (ServerSocket s = new ServerSocket())
            {
                s.setReuseAddress(false);
                s.bind(new InetSocketAddress(port));
            }
        }
    }
}
