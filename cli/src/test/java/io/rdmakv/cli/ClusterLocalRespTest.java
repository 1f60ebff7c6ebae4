package io.rdmakv.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code rdmakv cluster local --resp-base-port R}: node i serves Redis clients on R + i - 1, the command names the
 * ports, each node's line names its address, and every node's {@code CLUSTER SLOTS} hands out the three RESP ports.
 */
@Timeout(600)
class ClusterLocalRespTest
{
    @TempDir
    Path tmp;

    @Test
    void shouldGiveEveryLocalNodeARespPort() throws Exception
    {
        final int base = LocalClusters.freeBasePort(3);
        final int resp = LocalClusters.freeBesideNodeOne(base);
        final String[] ready = new String[1];
        try (ChildJvm local = ChildJvm.startUntil(tmp, "READY cluster", ready, RdmakvMain.class.getName(), "cluster",
            "local", "--nodes", "3", "--replicas", "1", "--base-port", Integer.toString(base),
            "--resp-base-port", Integer.toString(resp), "--data-dir", tmp.resolve("cluster").toString(),
            "-S", "pool.size=16MiB"))
        {
            final String lines = String.join("\n", local.linesRead());
            assertTrue(lines.contains("resp: Redis clients on 127.0.0.1:" + resp + "..127.0.0.1:" + (resp + 2)),
                lines);
            for (int i = 1; i <= 3; i++)
            {
                final int port = resp + i - 1;
                assertTrue(lines.contains("resp=127.0.0.1:" + port), "node " + i + "'s line: " + lines);
                final String hashSlots = call(port, "*2\r\n$7\r\nCLUSTER\r\n$5\r\nSLOTS\r\n");
                for (int k = 0; k < 3; k++)
                {
                    assertTrue(hashSlots.contains(":" + (resp + k) + "\r\n"), "node " + i + " names port " + (resp + k) +
                        ": " + hashSlots);
                }
            }
        }
    }

    /** Send one command and read what arrives until the reply has been quiet for a moment (tests only). */
    private static String call(final int port, final String command) throws IOException
    {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port))
        {
            socket.setSoTimeout(30_000);
            final OutputStream out = socket.getOutputStream();
            out.write(command.getBytes(StandardCharsets.US_ASCII));
            out.write("*1\r\n$4\r\nQUIT\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            final BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                StandardCharsets.UTF_8));
            final List<String> reply = new ArrayList<>();
            String line;
            while ((line = in.readLine()) != null)
            {
                reply.add(line);
            }
            assertEquals("+OK", reply.get(reply.size() - 1), "QUIT's reply last: " + reply);
            return String.join("\r\n", reply) + "\r\n";
        }
    }
}
