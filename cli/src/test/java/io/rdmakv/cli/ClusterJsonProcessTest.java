package io.rdmakv.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rdmakv.client.KvClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Every {@code rdmakv cluster} command's {@code --json}, and {@code stats --json}, parsed with Jackson against a
 * local cluster of real processes ({@code cluster local}, then {@code cluster add-node}): the types (numbers, arrays,
 * objects, enum names) and the values the cluster must have. Node 4 joins primary of nothing: {@code stats} and
 * {@code KvClient.stats()} must still report it.
 */
@Timeout(900)
class ClusterJsonProcessTest
{
    private static final String MAIN = RdmakvMain.class.getName();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> RANGE_STATES = Set.of("LIVE", "MIGRATING", "FENCED");

    @TempDir
    Path tmp;

    @Test
    void shouldAnswerEveryClusterCommandInTypedJson() throws Exception
    {
        final int base = LocalClusters.freeBasePort(4);
        final String seed = "127.0.0.1:" + base;
        final String[] ready = new String[1];
        try (ChildJvm local = ChildJvm.startUntil(tmp, "{\"event\":\"READY\"", ready, MAIN, "cluster", "local",
            "--nodes", "3", "--replicas", "1", "--base-port", Integer.toString(base), "--data-dir",
            tmp.resolve("cluster").toString(), "-S", "pool.size=16MiB", "--json"))
        {
            localLines(JSON.readTree(ready[0]), local.linesRead(), seed);
            try (KvClient client = LocalClusters.client(seed))
            {
                for (int i = 0; i < 50; i++)
                {
                    client.put("key-" + i, "value-" + i);
                }
            }

            final String[] joined = new String[1];
            try (ChildJvm node4 = ChildJvm.startUntil(tmp, "{", joined, MAIN, "cluster", "add-node", "--server", seed,
                "--node-id", "4", "--port", Integer.toString(base + 30), "--raft-port", Integer.toString(base + 32),
                "--data-dir", tmp.resolve("node-4").toString(), "-S", "pool.size=16MiB", "--json"))
            {
                final JsonNode join = JSON.readTree(joined[0]);
                assertInt(join, "node", 4);
                assertInt(join, "raftPort", base + 32);
                assertEquals(3, join.get("voters").size(), join.toString());
                join.get("voters").forEach(v -> assertTrue(v.get("id").isInt() && v.get("port").isInt(),
                    join.toString()));
                LocalClusters.awaitStatus(seed, s -> member(s, 4) != null &&
                    member(s, 4).get("state").asText().equals("LIVE"), "node 4 joining");

                final JsonNode status = status(seed);
                statusTypes(status, 4);
                final long epoch = status.get("epoch").asLong();
                final JsonNode joiner = member(status, 4);
                assertEquals("FOLLOWER", joiner.get("role").asText(), joiner.toString());
                assertEquals("RENEWING", joiner.get("lease").get("state").asText(), joiner.toString());
                assertTrue(joiner.get("lease").get("remainingMs").isNull(), joiner.toString());
                for (final JsonNode r : status.get("ranges"))
                {
                    assertTrue(r.get("primary").asInt() != 4, "node 4 joined primary of nothing: " + r);
                }

                statsCoverEveryNode(seed);

                final JsonNode plan = admin(ExitCodes.OK, "rebalance", "--server", seed, "--plan");
                assertEquals(epoch, plan.get("epoch").asLong(), "a plan changes nothing: " + plan);
                assertFalse(plan.get("moves").isEmpty(), "node 4 has nothing: moves to it: " + plan);
                for (final JsonNode m : plan.get("moves"))
                {
                    assertInt(m, "target", 4);
                    assertTrue(m.get("from").isInt() && m.get("to").isInt() && m.get("from").asInt() <= m.get("to")
                        .asInt(), m.toString());
                }

                final JsonNode first = status.get("ranges").get(0);
                final int backup = first.get("backups").get(0).asInt();
                final JsonNode failover = admin(ExitCodes.OK, "failover", "--server", seed, "--slot",
                    first.get("from").asText(), "--to", Integer.toString(backup));
                assertTrue(failover.get("epoch").asLong() > epoch, failover.toString());
                assertInt(range(failover, first.get("from").asInt()), "primary", backup);
                assertTrue(failover.get("messages").get(0).asText().startsWith("committed at epoch"),
                    failover.toString());

                final JsonNode move = plan.get("moves").get(0);
                final JsonNode moving = admin(ExitCodes.OK, "move", "--server", seed, "--slots",
                    move.get("from").asInt() + "-" + move.get("to").asInt(), "--to", "4");
                final JsonNode migrating = range(moving, move.get("from").asInt());
                assertEquals("MIGRATING", migrating.get("state").asText(), moving.toString());
                assertTrue(migrating.get("learners").toString().contains("4"), moving.toString());
                final JsonNode finished = finishMove(seed, move.get("from").asInt());
                assertInt(range(finished, move.get("from").asInt()), "primary", 4);
                for (final JsonNode f : finished.get("fenced"))
                {
                    assertTrue(f.get("from").isInt() && f.get("releasedBy").isInt(), finished.toString());
                }

                final JsonNode added = admin(ExitCodes.OK, "add-voter", "--server", seed, "--node", "4",
                    "--raft-address", "127.0.0.1:" + (base + 32));
                assertEquals(Set.of(1, 2, 3, 4), ids(added.get("voters")), added.toString());
                final JsonNode refused = admin(ExitCodes.FAILED, "replace-voter", "--server", seed, "--node", "9",
                    "--with", "4", "--raft-address", "127.0.0.1:" + (base + 32));
                assertFalse(refused.get("ok").asBoolean(), refused.toString());
                assertTrue(refused.get("error").isTextual() && !refused.get("error").asText().isEmpty(),
                    refused.toString());
                assertEquals(Set.of(1, 2, 3, 4), ids(refused.get("voters")), "refused: nothing changed: " + refused);
                final JsonNode removed = admin(ExitCodes.OK, "remove-voter", "--server", seed, "--node", "4");
                assertEquals(Set.of(1, 2, 3), ids(removed.get("voters")), removed.toString());

                final JsonNode drained = admin(ExitCodes.OK, "remove-node", "--server", seed, "--node", "4");
                for (final JsonNode r : drained.get("ranges"))
                {
                    assertTrue(r.get("primary").asInt() != 4 && !ids(r.get("backups")).contains(4) &&
                        !ids(r.get("learners")).contains(4), "node 4 drained: " + drained);
                }
                final JsonNode balanced = admin(ExitCodes.OK, "rebalance", "--server", seed);
                assertTrue(balanced.get("moves").isNull(), "moves: only in a plan: " + balanced);
            }
        }
    }

    /** The NODE and READY lines of {@code cluster local --json}. */
    private static void localLines(final JsonNode ready, final List<String> lines, final String seed)
        throws IOException
    {
        assertEquals("READY", ready.get("event").asText());
        assertInt(ready, "nodes", 3);
        assertInt(ready, "replicas", 1);
        assertEquals(seed, ready.get("seed").asText());
        final Set<Integer> started = new TreeSet<>();
        for (final String line : lines.subList(0, lines.size() - 1))
        {
            final JsonNode node = JSON.readTree(line);
            assertEquals("NODE", node.get("event").asText(), line);
            assertTrue(node.get("pid").isIntegralNumber() && node.get("pid").asLong() > 0, line);
            assertEquals("VOTER", node.get("role").asText(), line);
            assertInt(node.get("ready"), "node", node.get("id").asInt());
            assertTrue(node.get("ready").get("poolComplete").isBoolean(), line);
            assertTrue(node.get("ready").get("serves").isArray() || node.get("ready").get("serves").isTextual(), line);
            started.add(node.get("id").asInt());
        }
        assertEquals(Set.of(1, 2, 3), started, lines.toString());
    }

    /** The types and invariants of {@code cluster status --json} with {@code members} members. */
    private static void statusTypes(final JsonNode s, final int members)
    {
        assertTrue(s.get("epoch").isIntegralNumber() && s.get("epoch").asLong() > 0, s.toString());
        assertTrue(s.get("answeredBy").isInt() && s.get("leader").isInt(), s.toString());
        assertEquals(3, s.get("voters").size(), s.toString());
        for (final JsonNode v : s.get("voters"))
        {
            assertTrue(v.get("id").isInt() && v.get("host").isTextual() && v.get("port").isInt(), v.toString());
        }
        assertEquals(members, s.get("nodes").size(), s.toString());
        for (final JsonNode n : s.get("nodes"))
        {
            assertTrue(n.get("id").isInt() && n.get("controlPort").isInt() && n.get("dataPort").isInt() &&
                n.get("renewals").isIntegralNumber() && n.get("failed").isBoolean(), n.toString());
            assertTrue(Set.of("LEADER", "VOTER", "FOLLOWER").contains(n.get("role").asText()), n.toString());
            final JsonNode lease = n.get("lease");
            assertTrue(lease.isObject(), n.toString());
            if (n.get("id").asInt() == s.get("answeredBy").asInt())
            {
                assertEquals(lease.get("state").asText().equals("HELD"), lease.get("remainingMs").isIntegralNumber(),
                    "the answering node's own lease: HELD with the time left, or NOT_HELD: " + n);
            }
            else
            {
                assertEquals("RENEWING", lease.get("state").asText(), n.toString());
            }
        }
        int next = 0;
        for (final JsonNode r : s.get("ranges"))
        {
            assertEquals(next, r.get("from").asInt(), "contiguous ranges: " + s.get("ranges"));
            assertTrue(r.get("from").isInt() && r.get("to").isInt() && r.get("epoch").isIntegralNumber() &&
                r.get("primary").isInt() && r.get("backups").isArray() && r.get("learners").isArray(), r.toString());
            r.get("backups").forEach(b -> assertTrue(b.isInt(), r.toString()));
            assertTrue(RANGE_STATES.contains(r.get("state").asText()), r.toString());
            next = r.get("to").asInt() + 1;
        }
        assertEquals(16384, next, s.get("ranges").toString());
        assertTrue(s.get("lag").isArray(), s.toString());
        for (final JsonNode row : s.get("lag"))
        {
            if (row.has("error"))
            {
                continue;
            }
            assertTrue(row.get("primary").isInt() && row.get("replica").isInt() && row.get("sent").isIntegralNumber() &&
                row.get("acked").isIntegralNumber() && row.get("outstanding").isIntegralNumber() &&
                (row.get("lastAckAgoMs").isNull() || row.get("lastAckAgoMs").isIntegralNumber()), row.toString());
            for (final JsonNode r : row.get("ranges"))
            {
                assertTrue(r.get("from").isInt() && r.get("to").isInt() &&
                    Set.of("BACKUP", "LEARNER").contains(r.get("role").asText()), row.toString());
            }
        }
    }

    /** {@code stats --json} and {@code KvClient.stats()} report all four nodes, node 4 primary of nothing included. */
    private void statsCoverEveryNode(final String seed) throws Exception
    {
        final ChildJvm.Result stats = cli("stats", "-s", seed, "--transport", "tcp", "--timeout-ms", "30000",
            "--json");
        assertEquals(ExitCodes.OK, stats.code(), stats.out() + stats.err());
        final JsonNode nodes = JSON.readTree(stats.out()).get("nodes");
        final List<Integer> ids = new ArrayList<>();
        for (final JsonNode n : nodes)
        {
            ids.add(n.get("id").asInt());
            assertFalse(n.has("error"), n.toString());
            assertTrue(n.get("uptime.ms").isIntegralNumber() && n.get("latency").get("put").get("count")
                .isIntegralNumber(), n.toString());
        }
        assertEquals(List.of(1, 2, 3, 4), ids, nodes.toString());
        try (KvClient client = LocalClusters.client(seed))
        {
            assertEquals(Set.of(1, 2, 3, 4), client.stats().nodes().keySet());
            assertFalse(client.stats().nodes().get(4).containsKey("error"), client.stats().nodes().toString());
        }
    }

    /** {@code finish-move} once the learner caught up (refused until then: each refusal's shape is checked too). */
    private JsonNode finishMove(final String seed, final int from) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LocalClusters.WAIT_SECONDS);
        while (true)
        {
            final ChildJvm.Result r = cli("cluster", "finish-move", "--server", seed, "--slot", Integer.toString(from),
                "--to", "4", "--json");
            final JsonNode outcome = JSON.readTree(r.out());
            assertEquals(outcome.get("ok").asBoolean() ? ExitCodes.OK : ExitCodes.FAILED, r.code(), r.out());
            assertEquals("finish-move", outcome.get("command").asText(), r.out());
            if (outcome.get("ok").asBoolean())
            {
                assertTrue(outcome.get("error").isNull(), r.out());
                return outcome;
            }
            assertTrue(outcome.get("error").isTextual(), r.out());
            if (System.nanoTime() > deadline)
            {
                fail("finish-move never accepted: " + r.out());
            }
            Thread.sleep(500);
        }
    }

    /** Run {@code cluster COMMAND ARGS --json}; its outcome, after checking the exit code and the common fields. */
    private JsonNode admin(final int exitCode, final String command, final String... args) throws Exception
    {
        final List<String> all = new ArrayList<>(List.of("cluster", command));
        all.addAll(List.of(args));
        all.add("--json");
        final ChildJvm.Result r = cli(all.toArray(String[]::new));
        assertEquals(exitCode, r.code(), r.out() + r.err());
        final JsonNode outcome = JSON.readTree(r.out());
        assertEquals(exitCode == ExitCodes.OK, outcome.get("ok").asBoolean(), r.out());
        assertEquals(command, outcome.get("command").asText(), r.out());
        assertTrue(outcome.get("epoch").isIntegralNumber() && outcome.get("ranges").isArray() &&
            outcome.get("voters").isArray() && outcome.get("fenced").isArray() &&
            outcome.get("messages").isArray(), r.out());
        return outcome;
    }

    private JsonNode status(final String seed) throws Exception
    {
        final ChildJvm.Result r = cli("cluster", "status", "--server", seed, "--json");
        assertEquals(ExitCodes.OK, r.code(), r.out() + r.err());
        return JSON.readTree(r.out());
    }

    private ChildJvm.Result cli(final String... args) throws Exception
    {
        return ChildJvm.run(tmp, ChildJvm.FLAGS, MAIN, args);
    }

    private static JsonNode member(final JsonNode status, final int id)
    {
        for (final JsonNode n : status.get("nodes"))
        {
            if (n.get("id").asInt() == id)
            {
                return n;
            }
        }
        return null;
    }

    private static JsonNode range(final JsonNode outcome, final int from)
    {
        for (final JsonNode r : outcome.get("ranges"))
        {
            if (r.get("from").asInt() == from)
            {
                return r;
            }
        }
        throw new AssertionError("no range from " + from + " in " + outcome);
    }

    private static Set<Integer> ids(final JsonNode array)
    {
        final Set<Integer> ids = new TreeSet<>();
        array.forEach(v -> ids.add(v.isObject() ? v.get("id").asInt() : v.asInt()));
        return ids;
    }

    private static void assertInt(final JsonNode node, final String field, final int expected)
    {
        assertTrue(node.get(field) != null && node.get(field).isInt(), field + " is a number: " + node);
        assertEquals(expected, node.get(field).asInt(), node.toString());
    }
}
