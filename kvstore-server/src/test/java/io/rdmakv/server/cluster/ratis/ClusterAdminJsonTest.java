package io.rdmakv.server.cluster.ratis;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rdmakv.protocol.wire.AdminReply;
import io.rdmakv.server.cluster.ClusterMember;
import io.rdmakv.server.cluster.ClusterState;
import io.rdmakv.server.cluster.SlotRange;
import io.rdmakv.server.cluster.StaticClusterView;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ADMIN {@code json ...} on a node of a static map: typed answers, and bad input (no command, an unknown one, a word
 * where a number goes, a host with a quote) refused as an outcome with the reason; a host's characters are written
 * as they are (the hand-written status once rewrote {@code ", "} inside values).
 */
class ClusterAdminJsonTest
{
    private static final ObjectMapper JSON = new ObjectMapper();

    private final ClusterAdmin admin = new ClusterAdmin(new StaticClusterView(1, new ClusterState(3,
        List.of(new ClusterMember(1, "host \"one\", rack 2", 7400, 7401), new ClusterMember(2, "10.0.0.2", 7410, 7411)),
        List.of(new SlotRange(0, 8191, 3, 1, List.of(2), List.of(), SlotRange.State.LIVE),
            new SlotRange(8192, 16383, 3, 2, List.of(), List.of(), SlotRange.State.FENCED)))));

    @Test
    void shouldAnswerStatusTyped() throws Exception
    {
        final AdminReply reply = admin.run("json status").join();
        assertTrue(reply.ok(), reply.text());
        final JsonNode s = JSON.readTree(reply.text());
        assertEquals(3, s.get("epoch").asLong());
        assertTrue(s.get("leader").isNull(), reply.text());
        assertEquals("host \"one\", rack 2", s.get("nodes").get(0).get("host").asText(), "written as it is");
        assertEquals("STATIC", s.get("nodes").get(1).get("role").asText());
        assertEquals("NONE", s.get("nodes").get(1).get("lease").get("state").asText());
        final JsonNode second = s.get("ranges").get(1);
        assertEquals(8192, second.get("from").asInt());
        assertEquals(16383, second.get("to").asInt());
        assertEquals("FENCED", second.get("state").asText());
        assertEquals(2, s.get("ranges").get(0).get("backups").get(0).asInt());
        assertEquals(reply.text(), admin.run("status json").join().text(), "the older form answers the same");
    }

    @Test
    void shouldRefuseBadInputAsAnOutcome() throws Exception
    {
        for (final String command : new String[] {"json", "json frobnicate", "json failover zero 2", "json move 1"})
        {
            final AdminReply reply = admin.run(command).join();
            assertFalse(reply.ok(), command);
            final JsonNode outcome = JSON.readTree(reply.text());
            assertFalse(outcome.get("ok").asBoolean(), reply.text());
            assertTrue(outcome.get("error").asText().length() > 5, reply.text());
            assertEquals(3, outcome.get("epoch").asLong(), "the state is still reported: " + reply.text());
            assertTrue(outcome.get("messages").isEmpty(), reply.text());
        }
        assertTrue(JSON.readTree(admin.run("json failover zero 2").join().text()).get("error").asText()
            .contains("not a number: 'zero'"));
        final JsonNode lag = JSON.readTree(admin.run("json lag").join().text());
        assertEquals(1, lag.get("node").asInt());
        assertTrue(lag.get("replicas").isArray() && lag.get("replicas").isEmpty(), lag.toString());
    }
}
