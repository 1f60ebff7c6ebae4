package io.rdmakv.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rdmakv.client.KvClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@code --json} of the admin commands against one node of a static map, a real process: {@code cluster status}
 * (no group: role STATIC, no lease, no voters), a command the node refuses ({@code cluster move}: ok false, the
 * reason, exit 3), and the {@code backup} and {@code restore} summaries, parsed with Jackson.
 */
@Timeout(300)
class StaticNodeJsonProcessTest
{
    private static final String MAIN = RdmakvMain.class.getName();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int KEYS = 25;

    @TempDir
    Path tmp;

    @Test
    void shouldAnswerTheAdminCommandsInTypedJson() throws Exception
    {
        final int controlPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            controlPort = s.getLocalPort();
        }
        final String[] ready = new String[1];
        try (ChildJvm server = ChildJvm.startUntil(tmp, "READY", ready, MAIN, "server", "--host", "127.0.0.1",
            "--advertised-host", "127.0.0.1", "--port", Integer.toString(controlPort), "--data-port", "0",
            "--data-dir", tmp.resolve("data").toString(), "--pool-size", "16MiB", "--transport", "tcp"))
        {
            final String seed = "127.0.0.1:" + controlPort;
            try (KvClient client = LocalClusters.client(seed))
            {
                for (int i = 0; i < KEYS; i++)
                {
                    client.put("key-" + i, "value-" + i);
                }
            }

            final ChildJvm.Result status = cli("cluster", "status", "--server", seed, "--json");
            assertEquals(ExitCodes.OK, status.code(), status.out() + status.err());
            final JsonNode s = JSON.readTree(status.out());
            assertTrue(s.get("epoch").isIntegralNumber() && s.get("leader").isNull(), s.toString());
            assertEquals(1, s.get("answeredBy").asInt());
            assertTrue(s.get("voters").isArray() && s.get("voters").isEmpty(), s.toString());
            final JsonNode node = s.get("nodes").get(0);
            assertEquals(1, node.get("id").asInt());
            assertEquals(controlPort, node.get("controlPort").asInt());
            assertEquals("STATIC", node.get("role").asText(), node.toString());
            assertEquals("LIVE", node.get("state").asText(), node.toString());
            assertEquals("NONE", node.get("lease").get("state").asText(), node.toString());
            assertTrue(node.get("lease").get("remainingMs").isNull(), node.toString());
            final JsonNode range = s.get("ranges").get(0);
            assertTrue(range.get("from").isInt() && range.get("to").isInt(), range.toString());
            assertEquals(0, range.get("from").asInt());
            assertEquals(16383, range.get("to").asInt());
            assertEquals(1, range.get("primary").asInt());
            assertTrue(range.get("backups").isArray() && range.get("backups").isEmpty(), range.toString());
            assertEquals("LIVE", range.get("state").asText());
            assertTrue(s.get("lag").isArray() && s.get("lag").isEmpty(), "no replicas: " + s);

            final ChildJvm.Result move = cli("cluster", "move", "--server", seed, "--slots", "0-99", "--to", "2",
                "--json");
            assertEquals(ExitCodes.FAILED, move.code(), move.out() + move.err());
            final JsonNode refused = JSON.readTree(move.out());
            assertFalse(refused.get("ok").asBoolean(), refused.toString());
            assertEquals("move", refused.get("command").asText(), refused.toString());
            assertTrue(refused.get("error").asText().contains("static cluster map"), refused.toString());
            assertEquals(s.get("ranges"), refused.get("ranges"), "nothing changed");

            final Path backupDir = tmp.resolve("backup");
            final ChildJvm.Result backup = cli("backup", "--server", seed, "--out", backupDir.toString(), "--json");
            assertEquals(0, backup.code(), backup.out() + backup.err());
            final JsonNode saved = JSON.readTree(backup.out());
            assertTrue(saved.get("keys").isIntegralNumber() && saved.get("bytes").isIntegralNumber() &&
                saved.get("millis").isIntegralNumber(), saved.toString());
            assertEquals(KEYS, saved.get("keys").asLong(), saved.toString());
            assertEquals(0, saved.get("from").asInt());
            assertEquals(16383, saved.get("to").asInt());
            assertEquals(1, saved.get("node").asInt());
            assertEquals(backupDir.toAbsolutePath().toString(), saved.get("dir").asText());

            final ChildJvm.Result restore = cli("restore", "--in", backupDir.toString(), "--server", seed, "--json");
            assertEquals(0, restore.code(), restore.out() + restore.err());
            final JsonNode restored = JSON.readTree(restore.out());
            assertEquals(KEYS, restored.get("keys").asLong(), restored.toString());
            assertEquals(saved.get("bytes"), restored.get("bytes"), restored.toString());
            assertEquals(1, restored.get("node").asInt());
        }
    }

    private ChildJvm.Result cli(final String... args) throws Exception
    {
        return ChildJvm.run(tmp, ChildJvm.FLAGS, MAIN, args);
    }
}
