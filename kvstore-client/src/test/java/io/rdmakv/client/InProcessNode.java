package io.rdmakv.client;

import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

/** A real node (RocksDB, pool, TCP transport, control plane) started in-process for client tests. */
final class InProcessNode
{
    private InProcessNode()
    {
    }

    /** A node on {@code dir}: TCP on loopback, ephemeral ports, an 8 MiB unpinned pool, plus {@code extra}. */
    static KvServer start(final Path dir, final Map<String, String> extra)
    {
        final Map<String, String> m = new HashMap<>();
        m.put("data.dir", dir.toString());
        m.put("transport", "tcp");
        m.put("host", "127.0.0.1");
        m.put("control.port", "0");
        m.put("data.port", "0");
        m.put("pool.size", "8MiB");
        m.put("pool.pin", "OFF");
        m.put("limits.maxValueBytes", "65536");
        m.putAll(extra);
        return KvServer.start(ServerConfig.from(new Properties(), m));
    }

    /**
     * Settings that put the control port at a free port chosen now, so a node restarted with them is found at the
     * address its clients already know (another process could take the port meanwhile; tests accept that risk).
     */
    static Map<String, String> fixedControlPort()
    {
        try (ServerSocket socket = new ServerSocket(0))
        {
            return Map.of("control.port", String.valueOf(socket.getLocalPort()));
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("no free port for the control plane", ex);
        }
    }

    /** A client of {@code server} over TCP with GETs forced one-sided (emulated reads, same protocol as verbs). */
    static KvClientBuilder client(final KvServer server)
    {
        return KvClient.builder().server("127.0.0.1:" + server.controlAddress().getPort()).transport("tcp")
            .getMode(GetMode.ONE_SIDED);
    }
}
