package io.rdmakv.cli.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReplicaLagViewTest
{
    private static final String STATUS = "{\"epoch\":7,\"answeredBy\":1,\"leader\":1,\"voters\":\"1@h:1\",\"nodes\":[" +
        "{\"id\":1,\"host\":\"127.0.0.1\",\"controlPort\":7400,\"dataPort\":7401,\"role\":\"leader\",\"failed\":false}," +
        "{\"id\":2,\"host\":\"127.0.0.1\",\"controlPort\":7410,\"dataPort\":7411,\"role\":\"voter\",\"failed\":false}," +
        "{\"id\":3,\"host\":\"127.0.0.1\",\"controlPort\":7420,\"dataPort\":7421,\"role\":\"voter\",\"failed\":true}]," +
        "\"ranges\":[]}";

    @Test
    void shouldAskEveryLiveNodeAndAddOneRowPerPrimaryAndReplica() throws Exception
    {
        final List<String> asked = new ArrayList<>();
        final Map<String, String> answers = Map.of(
            "127.0.0.1:7400", "{\"node\":1,\"replicas\":[{\"node\":2,\"ranges\":[{\"from\":0,\"to\":5460," +
                "\"role\":\"BACKUP\"},{\"from\":5461,\"to\":6000,\"role\":\"LEARNER\"}],\"sent\":10,\"acked\":7," +
                "\"outstanding\":3,\"lastAckAgoMs\":40},{\"node\":3,\"ranges\":[],\"sent\":0,\"acked\":0," +
                "\"outstanding\":0,\"lastAckAgoMs\":null}]}");
        final List<ReplicaLagView.NodeLag> lags = ReplicaLagView.collect(STATUS, address ->
        {
            asked.add(address);
            final String a = answers.get(address);
            if (a == null)
            {
                throw new IllegalStateException("connection refused");
            }
            return a;
        });
        assertEquals(List.of("127.0.0.1:7400", "127.0.0.1:7410"), asked, "live nodes only");

        final JsonNode rows = new ObjectMapper().readTree(ReplicaLagView.json(STATUS, lags)).path("lag");
        assertEquals(4, rows.size(), rows.toString());
        assertEquals(1, rows.get(0).path("primary").asInt());
        assertEquals(2, rows.get(0).path("replica").asInt());
        assertTrue(rows.get(0).path("outstanding").isIntegralNumber());
        assertEquals(3, rows.get(0).path("outstanding").asInt());
        assertEquals(5460, rows.get(0).path("ranges").get(0).path("to").asInt());
        assertEquals("LEARNER", rows.get(0).path("ranges").get(1).path("role").asText());
        assertEquals(40, rows.get(0).path("lastAckAgoMs").asLong());
        assertTrue(rows.get(1).path("lastAckAgoMs").isNull(), "never answered: null, not a number");
        assertEquals("connection refused", rows.get(2).path("error").asText());
        assertEquals("declared failed", rows.get(3).path("error").asText());

        final String text = ReplicaLagView.text(lags);
        assertTrue(text.matches("(?s).*\\n1\\s+2\\s+0-5460,5461-6000 learner\\s+10\\s+7\\s+3\\s+40 ms ago\\n.*"),
            text);
        assertTrue(text.matches("(?s).*\\n1\\s+3\\s+-\\s+0\\s+0\\s+0\\s+never\\n.*"), text);
        assertTrue(text.contains("(connection refused)") && text.contains("(declared failed)"), text);
    }
}
