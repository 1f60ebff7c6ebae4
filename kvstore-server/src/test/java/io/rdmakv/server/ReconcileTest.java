package io.rdmakv.server;

import io.rdmakv.protocol.layout.ValueRecord;
import io.rdmakv.protocol.layout.KeyHash;
import io.rdmakv.protocol.layout.SlotOwnershipTable;
import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.ReplicateRequestFlyweight;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.cluster.ClusterMember;
import io.rdmakv.server.cluster.SlotRange;
import io.rdmakv.server.cluster.ratis.ClusterCommand;
import io.rdmakv.server.cluster.ratis.ClusterTransitions;
import io.rdmakv.server.cluster.ratis.CoordState;
import io.rdmakv.server.counters.ServerCounter;
import io.rdmakv.server.replication.ReconcileHolds;
import io.rdmakv.server.replication.ScriptedCluster;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Three in-process nodes, two backups per range, the coordinator's real decisions ({@link ClusterTransitions}) played
 * through a {@link ScriptedCluster}. Node 1, the primary, stops with its last writes in flight: they reached one of
 * its backups and not the other (as REPLICATEs carrying its incarnation and replication sequence, as its own would).
 * After node 2 takes over, node 3 holds exactly node 2's values of those keys, in its store and its pool, and stays an
 * in-sync backup (nothing dropped, no removal asked): the new primary reconciled it before taking writes.
 */
class ReconcileTest
{
    private static final int KEYS = 200;
    /**
     * The replication timeout of the nodes: no test here waits for one (a backup that cannot be reconciled answers "not
     * covered"), and at the default 1 s a reconcile's query on a link still connecting timed out on a host at load 25.
     */
    private static final String TIMEOUT_MS = "10000";

    @TempDir
    Path dir;

    private final ScriptedCluster cluster = new ScriptedCluster();
    private final KvServer[] nodes = new KvServer[4];
    private CoordState coord;
    private SlotRange range;
    private List<String> keys;

    private static byte[] b(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @AfterEach
    void stop()
    {
        ReconcileHolds.letGo();
        for (final KvServer node : nodes)
        {
            if (node != null)
            {
                node.close();
            }
        }
        cluster.close();
    }

    /** Node 2 held node 1's last writes, node 3 none: node 3 gets them from node 2. */
    @Test
    @Timeout(120)
    void shouldGiveTheOtherBackupTheWritesOnlyTheNewPrimaryHeld() throws Exception
    {
        startAndWrite();
        final long p = nodes[1].replicationIncarnation();
        try (RawClient toTwo = RawClient.attached(nodes[2]))
        {
            assertEquals(Status.OK, toTwo.raw(replicate(range, p, KEYS + 1, OP.PUT, keys.get(KEYS), "served", 0))
                .status());
            assertEquals(Status.OK, toTwo.raw(replicate(range, p, KEYS + 2, OP.DELETE, keys.get(0), null, 0))
                .status());
            assertEquals(Status.OK, toTwo.raw(replicate(range, p, KEYS + 3, OP.PUT, keys.get(1), "newer", 0))
                .status());
        }
        failOverToTwo();

        assertHeldAlike(nodes[3], keys.get(KEYS), b("served"));
        assertHeldAlike(nodes[3], keys.get(0), null);
        assertHeldAlike(nodes[3], keys.get(1), b("newer"));
        assertStillInSyncAndUndropped();
    }

    /** Node 3 held node 1's last writes, node 2 none: node 3 takes back what node 2 never had. */
    @Test
    @Timeout(120)
    void shouldUndoOnTheOtherBackupTheWritesTheNewPrimaryNeverHad() throws Exception
    {
        startAndWrite();
        final long p = nodes[1].replicationIncarnation();
        try (RawClient toThree = RawClient.attached(nodes[3]))
        {
            assertEquals(Status.OK, toThree.raw(replicate(range, p, KEYS + 1, OP.PUT, keys.get(KEYS),
                "never-acknowledged", 0)).status());
            assertEquals(Status.OK, toThree.raw(replicate(range, p, KEYS + 2, OP.DELETE, keys.get(0), null, 0))
                .status());
            assertEquals(Status.OK, toThree.raw(replicate(range, p, KEYS + 3, OP.PUT, keys.get(1), "lost", 0))
                .status());
        }
        failOverToTwo();

        assertHeldAlike(nodes[3], keys.get(KEYS), null);
        assertHeldAlike(nodes[3], keys.get(0), b("v0"));
        assertHeldAlike(nodes[3], keys.get(1), b("v1"));
        assertStillInSyncAndUndropped();
    }

    /**
     * A manual failover with node 1 alive: its last write is taken by node 2 (its view still old) and refused by node 3
     * (its view new). The client's retry at node 2 is answered from node 2's write-id record, so it must not be
     * acknowledged before node 3 holds the write: node 2 answers WRONG_NODE naming itself (retry) until node 3
     * is reconciled.
     */
    @Test
    @Timeout(120)
    void shouldNotAcknowledgeARetryAtTheNewPrimaryBeforeTheOtherBackupHoldsIt() throws Exception
    {
        startAndWrite();
        final long p = nodes[1].replicationIncarnation();
        final long writer = 0x5EEDL;
        final String key = keys.get(KEYS);
        final byte[] inFlight = replicate(range, p, KEYS + 1, OP.PUT, key, "cut-over", writer);
        try (RawClient toTwo = RawClient.attached(nodes[2]))
        {
            assertEquals(Status.OK, toTwo.raw(inFlight).status(), "node 2's view is still the old one");
        }
        coord = apply(coord, new ClusterCommand.Failover(range.firstSlot(), 2));
        cluster.set(coord.cluster());
        try (RawClient toThree = RawClient.attached(nodes[3]))
        {
            assertEquals(Status.STALE_EPOCH, toThree.raw(inFlight).status(), "node 3 saw the new epoch first");
        }
        coord = apply(coord, new ClusterCommand.ReleaseRange(range.firstSlot(), 1));
        cluster.set(coord.cluster());

        try (RawClient client = RawClient.attached(nodes[2]))
        {
            final RawClient.Reply retried = untilNotBusy(() -> client.put(b(key), b("cut-over"), writer, 1, 1));
            assertEquals(Status.OK, retried.status(), "the retry is answered from node 2's record");
            assertArrayEquals(b("cut-over"), nodes[3].store().get(b(key)),
                "acknowledged only once the other in-sync backup holds it");
            assertTrue(client.stats().text().contains("writes.retriesAnswered=1"), "answered, not applied again");
        }
        assertArrayEquals(b("cut-over"), nodes[2].store().get(b(key)));
        assertTrue(cluster.current().rangeOf(range.firstSlot()).backups().contains(3),
            "node 3 is still in sync (node 1 may have caught up and joined it)");
        assertEquals(0, cluster.removalRequests());
    }

    /**
     * Node 3 alone took node 1's last write, which carried a client write id; node 2's reconcile undid it there. Node 2
     * stops too and node 3 is promoted: the client's retry of that write must be applied, not answered OK from a record
     * of a write node 3 no longer holds (the acknowledged write the fault set once saw lost).
     */
    @Test
    @Timeout(120)
    void shouldApplyAtTheOtherBackupARetryOfAWriteTheReconcileUndidThere() throws Exception
    {
        startAndWrite();
        final long p = nodes[1].replicationIncarnation();
        final long writer = 0x5EEDL;
        final String key = keys.get(KEYS);
        try (RawClient toThree = RawClient.attached(nodes[3]))
        {
            assertEquals(Status.OK, toThree.raw(replicate(range, p, KEYS + 1, OP.PUT, key, "unanswered", writer))
                .status());
        }
        failOverToTwo();
        assertHeldAlike(nodes[3], key, null);
        assertEquals(1, nodes[2].counters().get(ServerCounter.RECONCILES));
        assertEquals(1, nodes[2].counters().get(ServerCounter.RECONCILE_FIX_UPS), "one key differed");
        assertEquals(1, nodes[3].counters().get(ServerCounter.WRITE_IDS_UNDONE));

        failOverToThree();
        try (RawClient client = RawClient.attached(nodes[3]))
        {
            assertEquals(Status.OK, untilNotBusy(() -> client.put(b(key), b("unanswered"), writer, 1, 1)).status());
            assertTrue(client.stats().text().contains("writes.retriesAnswered=0"), "applied, not answered");
            assertArrayEquals(b("unanswered"), client.get(b(key)).value(), "the retry's write is held");
        }
        assertArrayEquals(b("unanswered"), nodes[3].store().get(b(key)));
    }

    /**
     * Node 2 alone took node 1's last write, with a client write id; its reconcile gives node 3 the value and the write
     * id. A later write of the key is acknowledged by both; then node 2 stops and node 3 is promoted. The client's
     * retry of the first write (its answer was lost) is answered from node 3's record, not applied again over the
     * later value.
     */
    @Test
    @Timeout(120)
    void shouldAnswerAtTheOtherBackupARetryOfAWriteTheReconcileGaveIt() throws Exception
    {
        startAndWrite();
        final long p = nodes[1].replicationIncarnation();
        final long writer = 0x5EEDL;
        final String key = keys.get(KEYS);
        try (RawClient toTwo = RawClient.attached(nodes[2]))
        {
            assertEquals(Status.OK, toTwo.raw(replicate(range, p, KEYS + 1, OP.PUT, key, "first", writer))
                .status());
        }
        failOverToTwo();
        assertHeldAlike(nodes[3], key, b("first"));
        try (RawClient other = RawClient.attached(nodes[2]))
        {
            assertEquals(Status.OK, other.put(b(key), b("later")).status());
        }
        assertArrayEquals(b("later"), nodes[3].store().get(b(key)));

        failOverToThree();
        try (RawClient client = RawClient.attached(nodes[3]))
        {
            assertEquals(Status.OK, untilNotBusy(() -> client.put(b(key), b("first"), writer, 1, 1)).status());
            assertTrue(client.stats().text().contains("writes.retriesAnswered=1"), "answered, not applied again");
        }
        assertArrayEquals(b("later"), nodes[3].store().get(b(key)), "the later acknowledged write stands");
    }

    /**
     * Node 2 alone took node 1's last two writes of a key all held: a PUT, then a DELETE it answered OK. Its reconcile
     * sends node 3 the key's absence once per write id; node 3 finds the key at the first and nothing at the second.
     * After node 2 stops too, the retries at node 3 must be answered as node 2 answered them (OK), not from node 3's
     * outcome of the fix-ups (a DELETE of nothing: NOT_FOUND).
     */
    @Test
    @Timeout(120)
    void shouldAnswerAtTheOtherBackupARetriedDeleteAsTheNewPrimaryAnsweredIt() throws Exception
    {
        startAndWrite();
        final long p = nodes[1].replicationIncarnation();
        final long writer = 0x5EEDL;
        final String key = keys.get(0);
        try (RawClient toTwo = RawClient.attached(nodes[2]))
        {
            assertEquals(Status.OK, toTwo.raw(replicate(range, p, KEYS + 1, OP.PUT, key, "put", writer, 1)).status());
            assertEquals(Status.OK, toTwo.raw(replicate(range, p, KEYS + 2, OP.DELETE, key, null, writer, 2))
                .status(), "the key existed at node 2");
        }
        failOverToTwo();
        assertHeldAlike(nodes[3], key, null);
        assertEquals(2, nodes[2].counters().get(ServerCounter.RECONCILE_FIX_UPS), "one per write id");

        failOverToThree();
        try (RawClient client = RawClient.attached(nodes[3]))
        {
            assertEquals(Status.OK, untilNotBusy(() -> client.delete(b(key), writer, 2, 1)).status(),
                "the DELETE's retry: answered as node 2 answered it");
            assertEquals(Status.OK, client.put(b(key), b("put"), writer, 1, 1).status(), "the PUT's retry");
            assertTrue(client.stats().text().contains("writes.retriesAnswered=2"), "answered, not applied again");
        }
        assertArrayEquals(null, nodes[3].store().get(b(key)), "nothing applied again");
    }

    /**
     * Node 3 alone took node 1's last write, then restarted (on the same ports, still listed in sync) just as node 1
     * stopped. Its window went with the process, but the store kept the sequence it applied: it answers node 2's query
     * "not covered" (it cannot say which writes it applied past node 2's last) and leaves the in-sync set, instead of
     * answering "nothing past 0" and staying in sync with a value node 2 never had.
     */
    @Test
    @Timeout(120)
    void shouldAskARestartedBackupOutOfTheInSyncSetWhenItAppliedMoreThanTheNewPrimary() throws Exception
    {
        restartedBackupLeavesTheInSyncSet("DEFAULT");
    }

    /**
     * As above with every node under durability FSYNC: the sequence node 3 applied went into the group commit's batch
     * with the write ({@code KeptRecords}), so the restarted node still knows it (before, it was in memory only and
     * node 3 answered with an empty window, staying in sync with a value node 2 never had).
     */
    @Test
    @Timeout(120)
    void shouldAskARestartedFsyncBackupOutOfTheInSyncSetWhenItAppliedMoreThanTheNewPrimary() throws Exception
    {
        restartedBackupLeavesTheInSyncSet("FSYNC");
    }

    private void restartedBackupLeavesTheInSyncSet(final String durability) throws Exception
    {
        startAndWrite(durability);
        final long p = nodes[1].replicationIncarnation();
        try (RawClient toThree = RawClient.attached(nodes[3]))
        {
            assertEquals(Status.OK, toThree.raw(replicate(range, p, KEYS + 1, OP.PUT, keys.get(KEYS), "only-three", 0))
                .status());
        }
        nodes[1].close();
        nodes[1] = null;
        final int control = nodes[3].controlAddress().getPort();
        final int data = nodes[3].dataAddress().getPort();
        nodes[3].close();
        nodes[3] = KvServer.start(KvServerTest.testConfig(dir.resolve("n3"), Map.of("node.id", "3", "control.port",
            Integer.toString(control), "data.port", Integer.toString(data), "replication.timeoutMs", TIMEOUT_MS,
            "durability", durability)), cluster.viewOf(3));
        assertArrayEquals(b("only-three"), nodes[3].store().get(b(keys.get(KEYS))), "kept across the restart");

        coord = apply(coord, new ClusterCommand.FailNode(1, 0));
        cluster.set(coord.cluster());
        try (RawClient client = RawClient.attached(nodes[2]))
        {
            assertEquals(Status.OK, untilNotBusy(() -> client.put(b("after"), b("failover"))).status());
        }
        assertEquals(List.of(), cluster.current().rangeOf(range.firstSlot()).backups(),
            "node 3 left the in-sync set of the range");
        assertEquals(1, cluster.removalRequests());
    }

    /**
     * Node 3's window of node 1 belongs to another incarnation than node 2's (it cannot tell which writes it lacks):
     * node 2 asks it out of the in-sync set (the coordinator makes it a learner that catches up) instead of
     * acknowledging writes without it.
     */
    @Test
    @Timeout(120)
    void shouldAskTheOtherBackupOutOfTheInSyncSetWhenTheWindowsDoNotCover() throws Exception
    {
        startAndWrite();
        try (RawClient toThree = RawClient.attached(nodes[3]))
        {
            assertEquals(Status.OK, toThree.raw(replicate(range, 0x0DDL, 1, OP.PUT, keys.get(KEYS), "other-run", 0))
                .status());
        }
        failOverToTwo();
        assertEquals(List.of(), cluster.current().rangeOf(range.firstSlot()).backups(),
            "node 3 left the in-sync set of the range");
        assertEquals(1, cluster.removalRequests());
    }

    /**
     * Node 2 alone took node 1's last write. While node 2 reconciles node 3, node 2 must not serve that write: should
     * node 2 die now, node 3 is promoted without it, and a reader that saw it at node 2 would read an older value
     * afterwards (a stale read after the second failover). So the range taken over is FENCED in node 2's ownership
     * words and its reads are answered WRONG_NODE naming node 2, as its writes are, until the reconcile succeeds; then
     * both are served. The reconcile is held before its query ({@link ReconcileHolds}), so "while" is certain.
     */
    @Test
    @Timeout(120)
    void shouldServeNoReadOfARangeTakenOverUntilItsBackupsAreReconciled() throws Exception
    {
        startAndWrite();
        final long p = nodes[1].replicationIncarnation();
        final String key = keys.get(KEYS);
        try (RawClient toTwo = RawClient.attached(nodes[2]))
        {
            assertEquals(Status.OK, toTwo.raw(replicate(range, p, KEYS + 1, OP.PUT, key, "only-two", 0)).status());
        }
        ReconcileHolds.hold(node -> node == 2);
        final SlotRange failedOver = failNodeOne();

        assertServesNot(nodes[2], key, failedOver.epoch());
        assertEquals(0, nodes[2].counters().get(ServerCounter.RECONCILES), "held before its query");

        ReconcileHolds.letGo();
        assertServes(nodes[2], key, b("only-two"), failedOver.epoch());
        assertEquals(1, nodes[2].counters().get(ServerCounter.RECONCILES));
        assertArrayEquals(b("only-two"), nodes[3].store().get(b(key)), "node 3 holds what node 2 served");
        assertStillInSyncAndUndropped();
    }

    /**
     * A reconcile that fails (node 3's window is of another run of node 1) releases the range too, once node 3 is out
     * of the in-sync set: until that removal is committed the range stays held (reads answered WRONG_NODE naming node
     * 2), then it is served without node 3.
     */
    @Test
    @Timeout(120)
    void shouldReleaseTheReadsOfARangeTakenOverWhenItsReconcileFails() throws Exception
    {
        startAndWrite();
        try (RawClient toThree = RawClient.attached(nodes[3]))
        {
            assertEquals(Status.OK, toThree.raw(replicate(range, 0x0DDL, 1, OP.PUT, keys.get(KEYS), "other-run", 0))
                .status());
        }
        cluster.policy(ScriptedCluster.Policy.HOLD);
        final java.util.concurrent.CountDownLatch removalAsked = cluster.nextRequest();
        final SlotRange failedOver = failNodeOne();
        assertTrue(removalAsked.await(60, TimeUnit.SECONDS), "node 2 asks node 3 out of the in-sync set");
        assertServesNot(nodes[2], keys.get(0), failedOver.epoch());

        cluster.release();
        final SlotRange without = untilBackups(List.of());
        assertServes(nodes[2], keys.get(0), b("v0"), without.epoch());
        assertEquals(1, cluster.removalRequests());
    }

    /**
     * A newer epoch ends a reconcile under way and its hold: node 3, the backup node 2 was to reconcile, fails while
     * node 2's reconcile is still held before its query. The range, with no backup left, is served at once at the
     * newer epoch, though the test's hold of node 2's reconcile is still on (no reconcile is left to release it).
     */
    @Test
    @Timeout(120)
    void shouldReleaseTheReadsOfARangeTakenOverAtANewerEpochWithoutItsBackup() throws Exception
    {
        startAndWrite();
        ReconcileHolds.hold(node -> node == 2);
        final SlotRange failedOver = failNodeOne();
        assertServesNot(nodes[2], keys.get(0), failedOver.epoch());

        nodes[3].close();
        nodes[3] = null;
        coord = apply(coord, new ClusterCommand.FailNode(3, 0));
        final SlotRange alone = coord.cluster().ranges().get(0);
        assertEquals(2, alone.primary());
        assertEquals(List.of(), alone.backups());
        cluster.set(coord.cluster());
        assertServes(nodes[2], keys.get(0), b("v0"), alone.epoch());
        assertEquals(0, nodes[2].counters().get(ServerCounter.RECONCILES), "nothing reconciled: released by the epoch");
    }

    /**
     * Node 3's view lags: it still names node 1 primary at epoch e. Once it took a message of epoch e + 1 from node 2
     * (the new primary: a RECONCILE query or a write), node 1's late writes of epoch e are refused, so none lands after
     * node 3 answered node 2's query.
     */
    @Test
    @Timeout(60)
    void shouldRefuseAnOlderEpochFromTheOldPrimaryOnceANewPrimarysMessageWasTaken() throws Exception
    {
        startAndWrite();
        final long p = nodes[1].replicationIncarnation();
        final SlotRange next = new SlotRange(range.firstSlot(), range.lastSlot(), range.epoch() + 1, 2, List.of(3),
            List.of(), SlotRange.State.LIVE);
        try (RawClient toThree = RawClient.attached(nodes[3]))
        {
            assertEquals(Status.OK, toThree.raw(replicate(range, p, KEYS + 1, OP.PUT, keys.get(0), "before", 0))
                .status(), "node 1's write at epoch e, before: taken");
            assertEquals(Status.OK, toThree.raw(replicate(next, 0x2L, 1, OP.PUT, keys.get(1), "from-two", 0))
                .status(), "node 2's write at epoch e + 1: newer than node 3's view, taken");
            assertEquals(Status.STALE_EPOCH, toThree.raw(replicate(range, p, KEYS + 2, OP.PUT, keys.get(0), "late",
                0)).status(), "node 1's late write at epoch e: refused");
        }
        assertArrayEquals(b("before"), nodes[3].store().get(b(keys.get(0))));
        assertArrayEquals(b("from-two"), nodes[3].store().get(b(keys.get(1))));
    }

    private enum OP
    {
        PUT, DELETE
    }

    /** Nodes 1..3, node 1 primary of the first range with backups 2 and 3; {@link #KEYS} writes through node 1. */
    private void startAndWrite() throws Exception
    {
        startAndWrite("DEFAULT");
    }

    /** As {@link #startAndWrite()}, every node under {@code durability}. */
    private void startAndWrite(final String durability) throws Exception
    {
        final List<ClusterMember> members = new ArrayList<>();
        for (int id = 1; id <= 3; id++)
        {
            nodes[id] = KvServer.start(KvServerTest.testConfig(dir.resolve("n" + id), Map.of("node.id",
                Integer.toString(id), "replication.timeoutMs", TIMEOUT_MS, "durability", durability)),
                cluster.viewOf(id));
            members.add(ReplicationTest.member(id, nodes[id]));
        }
        coord = CoordState.empty();
        for (final ClusterMember m : members)
        {
            coord = apply(coord, new ClusterCommand.Join(m, 3, 2));
        }
        cluster.set(coord.cluster());
        range = coord.cluster().ranges().get(0);
        assertEquals(1, range.primary());
        assertEquals(List.of(2, 3), range.backups());
        keys = keysOf(range, KEYS + 1);
        try (RawClient client = RawClient.attached(nodes[1]))
        {
            for (int i = 0; i < KEYS; i++)
            {
                assertEquals(Status.OK, client.put(b(keys.get(i)), b("v" + i)).status());
            }
        }
    }

    /** Node 1 stops; the coordinator fails it over to node 2 (node 3 stays a backup); a write at node 2 passes. */
    private void failOverToTwo() throws Exception
    {
        nodes[1].close();
        nodes[1] = null;
        coord = apply(coord, new ClusterCommand.FailNode(1, 0));
        final SlotRange failedOver = coord.cluster().ranges().get(0);
        assertEquals(2, failedOver.primary());
        cluster.set(coord.cluster());
        try (RawClient client = RawClient.attached(nodes[2]))
        {
            // Answered WRONG_NODE (itself) until node 3 is reconciled (or asked out of the in-sync set).
            assertEquals(Status.OK, untilNotBusy(() -> client.put(b("after"), b("failover"))).status());
        }
    }

    /** Node 1 stops; the coordinator fails it over to node 2 (node 3 stays a backup); returns the range now. */
    private SlotRange failNodeOne()
    {
        nodes[1].close();
        nodes[1] = null;
        coord = apply(coord, new ClusterCommand.FailNode(1, 0));
        final SlotRange failedOver = coord.cluster().ranges().get(0);
        assertEquals(2, failedOver.primary());
        assertEquals(List.of(3), failedOver.backups());
        cluster.set(coord.cluster()); // node 2's listeners have the state when this returns
        return failedOver;
    }

    /** Wait (at most 60 s) until the cluster lists {@code backups} for the range; returns it. */
    private SlotRange untilBackups(final List<Integer> backups)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        SlotRange now = cluster.current().rangeOf(range.firstSlot());
        while (!now.backups().equals(backups) && System.nanoTime() < deadline)
        {
            Thread.onSpinWait();
            now = cluster.current().rangeOf(range.firstSlot());
        }
        assertEquals(backups, now.backups());
        return now;
    }

    /**
     * {@code node} serves nothing of the range at {@code epoch}: its ownership word says FENCED, a GET and a PUT are
     * answered WRONG_NODE naming the node itself (the client refreshes and retries).
     */
    private void assertServesNot(final KvServer node, final String key, final long epoch) throws Exception
    {
        final long word = node.ownership().word(KeyHash.hashSlot(b(key)));
        assertEquals(SlotOwnershipTable.STATE_FENCED, SlotOwnershipTable.state(word), "ownership word: FENCED");
        assertEquals(epoch, SlotOwnershipTable.epoch(word));
        try (RawClient client = RawClient.attached(node))
        {
            final RawClient.Reply read = client.get(b(key));
            assertEquals(Status.WRONG_NODE, read.status(), "a read of the range taken over");
            assertTrue(read.text().endsWith(":" + node.controlAddress().getPort()), "names the node: " + read.text());
            assertEquals(Status.WRONG_NODE, client.put(b(key), b("held")).status(), "a write of it");
        }
    }

    /** {@code node} serves {@code key} ({@code expected}) once its reconcile ended, its word LIVE at {@code epoch}. */
    private void assertServes(final KvServer node, final String key, final byte[] expected, final long epoch)
        throws Exception
    {
        try (RawClient client = RawClient.attached(node))
        {
            final RawClient.Reply read = untilNotBusy(() -> client.get(b(key)));
            assertEquals(Status.OK, read.status());
            assertArrayEquals(expected, read.value());
        }
        final long word = node.ownership().word(KeyHash.hashSlot(b(key)));
        assertEquals(SlotOwnershipTable.STATE_LIVE, SlotOwnershipTable.state(word), "ownership word: LIVE");
        assertEquals(epoch, SlotOwnershipTable.epoch(word));
    }

    /** Node 2 stops too; the coordinator fails the range over to node 3, its last replica. */
    private void failOverToThree()
    {
        nodes[2].close();
        nodes[2] = null;
        coord = apply(coord, new ClusterCommand.FailNode(2, 0));
        assertEquals(3, coord.cluster().ranges().get(0).primary());
        cluster.set(coord.cluster());
    }

    private void assertStillInSyncAndUndropped()
    {
        assertEquals(List.of(3), cluster.current().rangeOf(range.firstSlot()).backups(), "node 3 is still in sync");
        assertEquals(0, cluster.removalRequests(), "no removal was asked");
        for (int i = 2; i < KEYS; i++)
        {
            assertArrayEquals(b("v" + i), nodes[3].store().get(b(keys.get(i))), "nothing dropped: " + keys.get(i));
            assertArrayEquals(nodes[2].store().get(b(keys.get(i))), nodes[3].store().get(b(keys.get(i))));
        }
    }

    /** {@code node} holds {@code expected} (null: nothing) for {@code key}, in store and pool, as node 2 does. */
    private void assertHeldAlike(final KvServer node, final String key, final byte[] expected) throws Exception
    {
        assertArrayEquals(expected, nodes[2].store().get(b(key)), "node 2: " + key);
        assertArrayEquals(expected, node.store().get(b(key)), "store: " + key);
        try (RawClient reader = RawClient.attached(node))
        {
            assertArrayEquals(expected, reader.oneSidedGet(node.remoteKey(), node.poolAddress(), b(key)),
                "pool: " + key);
        }
    }

    private interface Write
    {
        RawClient.Reply send() throws Exception;
    }

    /** Send the write again while it is held (WRONG_NODE naming node 2: a reconcile under way); at most 60 s. */
    private static RawClient.Reply untilNotBusy(final Write write) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        RawClient.Reply reply = write.send();
        while (reply.status() == Status.WRONG_NODE && System.nanoTime() < deadline)
        {
            Thread.onSpinWait();
            reply = write.send();
        }
        return reply;
    }

    private static CoordState apply(final CoordState s, final ClusterCommand c)
    {
        final ClusterTransitions.Outcome o = ClusterTransitions.apply(s, c);
        assertTrue(o.accepted(), o.refusal());
        return o.state();
    }

    /** {@code count} keys whose slots lie in {@code range}. */
    private static List<String> keysOf(final SlotRange range, final int count)
    {
        final List<String> keys = new ArrayList<>();
        for (int i = 0; keys.size() < count; i++)
        {
            final String key = "key-" + i;
            final int hashSlot = KeyHash.hashSlot(b(key));
            if (hashSlot >= range.firstSlot() && hashSlot <= range.lastSlot())
            {
                keys.add(key);
            }
        }
        return keys;
    }

    /**
     * A write node 1 replicates (what it sent before it stopped): its incarnation and replication sequence, and the
     * client's write id when {@code writer} is not 0.
     */
    private static byte[] replicate(final SlotRange range, final long incarnation, final long sequence, final OP op,
        final String key, final String value, final long writer)
    {
        return replicate(range, incarnation, sequence, op, key, value, writer, 1);
    }

    /** As above, the client's write numbered {@code writeSequence}. */
    private static byte[] replicate(final SlotRange range, final long incarnation, final long sequence, final OP op,
        final String key, final String value, final long writer, final long writeSequence)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[512]);
        final byte[] v = value == null ? new byte[0] : ValueRecord.of(b(value), writeSequence + 1, 0); // a record
        final ReplicateRequestFlyweight r = new ReplicateRequestFlyweight().wrap(buffer, 0, 512)
            .header(MessageType.REPLICATE_REQUEST, 78)
            .write(range.primary(), range.firstSlot(), range.lastSlot(), range.epoch(),
                op == OP.PUT ? ReplicateRequestFlyweight.OP_PUT : ReplicateRequestFlyweight.OP_DELETE,
                new UnsafeBuffer(b(key)), 0, key.length(), new UnsafeBuffer(v), 0, v.length);
        if (writer != 0)
        {
            r.appendWriteId(writer, writeSequence, 1);
        }
        r.appendSequence(incarnation, sequence);
        final byte[] bytes = new byte[r.encodedLength()];
        buffer.getBytes(0, bytes);
        return bytes;
    }
}
