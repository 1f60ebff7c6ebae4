package io.rdmakv.server;

import io.rdmakv.protocol.layout.ValueRecord;
import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.RecordWriteRequestFlyweight;
import io.rdmakv.protocol.wire.ReplicateRequestFlyweight;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.cluster.ClusterMember;
import io.rdmakv.server.cluster.ClusterState;
import io.rdmakv.server.cluster.SlotRange;
import io.rdmakv.server.replication.ScriptedCluster;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Replication between in-process nodes over the TCP transport, with a cluster configuration the test scripts: node 1
 * is primary of every slot, node 2 its in-sync backup.
 */
class ReplicationTest
{
    @TempDir
    Path dir;

    private final ScriptedCluster cluster = new ScriptedCluster();
    private KvServer primary;
    private KvServer backup;

    private static byte[] b(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static ClusterMember member(final int nodeId, final KvServer server)
    {
        return new ClusterMember(nodeId, "127.0.0.1", server.controlAddress().getPort(),
            server.dataAddress().getPort());
    }

    /** Node 1 primary, node 2 its backup (both started; the state names their bound ports). */
    private void startPair(final Map<String, String> extra)
    {
        primary = KvServer.start(KvServerTest.testConfig(dir.resolve("n1"), withId(1, extra)), cluster.viewOf(1));
        backup = KvServer.start(KvServerTest.testConfig(dir.resolve("n2"), withId(2, extra)), cluster.viewOf(2));
        cluster.set(ScriptedCluster.oneRange(5, List.of(member(1, primary), member(2, backup)), 1, List.of(2),
            List.of()));
    }

    /**
     * As {@link #startPair}, node 2 reached through a proxy the test can pause, swallow or cut (its link to the
     * primary); the primary waits {@code replicationTimeoutMs} for an acknowledgement.
     */
    private CuttableProxy startPairThroughProxy(final String replicationTimeoutMs) throws java.io.IOException
    {
        primary = KvServer.start(KvServerTest.testConfig(dir.resolve("n1"), withId(1, Map.of("replication.timeoutMs",
            replicationTimeoutMs))), cluster.viewOf(1));
        backup = KvServer.start(KvServerTest.testConfig(dir.resolve("n2"), withId(2, Map.of())), cluster.viewOf(2));
        final CuttableProxy proxy = new CuttableProxy(backup.dataAddress());
        cluster.set(ScriptedCluster.oneRange(5, List.of(member(1, primary), new ClusterMember(2, "127.0.0.1",
            backup.controlAddress().getPort(), proxy.port())), 1, List.of(2), List.of()));
        return proxy;
    }

    /**
     * Close the backup, hold the removal from the in-sync set the primary will ask for, send a write with
     * {@code send}; returns its correlation id once the primary asked for the removal (the write waits on it).
     */
    private long sentWithTheDeadBackupsRemovalHeld(final java.util.function.LongSupplier send, final String waits)
        throws InterruptedException
    {
        backup.close();
        backup = null;
        cluster.policy(ScriptedCluster.Policy.HOLD);
        final java.util.concurrent.CountDownLatch requested = cluster.nextRequest();
        final long id = send.getAsLong();
        assertTrue(requested.await(30, TimeUnit.SECONDS), waits);
        return id;
    }

    private static Map<String, String> withId(final int id, final Map<String, String> extra)
    {
        final Map<String, String> m = new java.util.HashMap<>(extra);
        m.put("node.id", Integer.toString(id));
        return m;
    }

    @AfterEach
    void stop()
    {
        if (primary != null)
        {
            primary.close();
        }
        if (backup != null)
        {
            backup.close();
        }
        cluster.close();
    }

    @Test
    @Timeout(60)
    void shouldHaveEveryAcknowledgedWriteOnTheBackupStoreAndPool() throws Exception
    {
        startPair(Map.of());
        try (RawClient client = RawClient.attached(primary); RawClient reader = RawClient.attached(backup))
        {
            for (int i = 0; i < 300; i++)
            {
                assertEquals(Status.OK, client.put(b("k" + i), b("v" + i)).status());
                // Acknowledged: the backup has it durably already, no waiting.
                assertArrayEquals(b("v" + i), backup.store().get(b("k" + i)), "k" + i);
                // The primary's record as it is: the backup holds the primary's data version (and expiry).
                assertArrayEquals(primary.store().getRecord(b("k" + i)), backup.store().getRecord(b("k" + i)),
                    "k" + i + ": the backup stores the primary's record verbatim");
            }
            final long first = ValueRecord.dataVersion(backup.store().getRecord(b("k1")));
            assertEquals(Status.OK, client.put(b("k1"), b("again")).status());
            final byte[] rewritten = backup.store().getRecord(b("k1"));
            assertTrue(ValueRecord.dataVersion(rewritten) > first, "a new write of a key, a higher version");
            assertEquals(1, ValueRecord.dataVersion(rewritten) & 0xFF, "issued by node 1, the primary");
            assertEquals(0, ValueRecord.expiryMillis(rewritten));
            assertEquals(Status.OK, client.put(b("k1"), b("v1")).status());
            // A PUT with an expiry and a counter: the backup holds the primary's version and expiry as they are.
            final long expiry = System.currentTimeMillis() + 3_600_000L;
            assertEquals(Status.OK, client.recordWrite(RecordWriteRequestFlyweight.OP_PUT, 0, expiry, b("ttl"),
                b("cached")).status());
            assertEquals(Status.OK, client.recordWrite(RecordWriteRequestFlyweight.OP_INCREMENT, 0, 41, b("n"),
                new byte[0]).status());
            assertEquals(Status.OK, client.recordWrite(RecordWriteRequestFlyweight.OP_INCREMENT, 0, 1, b("n"),
                new byte[0]).status());
            for (final String k : new String[] {"ttl", "n"})
            {
                assertArrayEquals(primary.store().getRecord(b(k)), backup.store().getRecord(b(k)), k);
            }
            assertEquals(expiry, ValueRecord.expiryMillis(backup.store().getRecord(b("ttl"))));
            assertArrayEquals(b("42"), backup.store().get(b("n")));
            for (int i = 0; i < 300; i += 3)
            {
                assertEquals(Status.OK, client.delete(b("k" + i)).status());
                assertNull(backup.store().get(b("k" + i)), "deleted k" + i);
            }
            assertEquals(Status.NOT_FOUND, client.delete(b("k0")).status(), "existence is the primary's answer");
            // The backup's pool holds the writes: a one-sided GET of its pool (what a client does after a promotion).
            assertArrayEquals(b("v1"), reader.oneSidedGet(backup.remoteKey(), backup.poolAddress(), b("k1")),
                "the backup applied the write to its pool as well (warm for a promotion)");
            assertArrayEquals(b("v299"), reader.oneSidedGet(backup.remoteKey(), backup.poolAddress(), b("k299")));
            assertNull(reader.oneSidedGet(backup.remoteKey(), backup.poolAddress(), b("k3")), "deleted from the pool");
            assertEquals(0, cluster.removalRequests());
        }
    }

    @Test
    @Timeout(60)
    void shouldRefuseAReplicationMessageOfAnOlderRangeEpoch() throws Exception
    {
        startPair(Map.of());
        try (RawClient peer = RawClient.attached(backup))
        {
            assertEquals(Status.STALE_EPOCH, peer.raw(replicate(3, 4, "old", "x")).status(),
                "epoch 4 < 5, from node 3, which is not the range's primary at 5");
            assertNull(backup.store().get(b("old")), "nothing applied");
            assertEquals(Status.OK, peer.raw(replicate(1, 5, "same", "y")).status(), "the current epoch is taken");
            assertArrayEquals(b("y"), backup.store().get(b("same")));
            assertEquals(Status.OK, peer.raw(replicate(1, 4, "moved", "w")).status(),
                "an older epoch from the primary at 5: its replica set changed while the message travelled");
            // The primary itself (not a replica of its own range) refuses it.
            try (RawClient toPrimary = RawClient.attached(primary))
            {
                assertEquals(Status.STALE_EPOCH, toPrimary.raw(replicate(1, 5, "p", "z")).status());
            }
            // Node 2 promoted at epoch 6: node 1's messages are refused by it, at any epoch up to 6.
            cluster.set(ScriptedCluster.oneRange(6, cluster.current().members(), 2, List.of(1), List.of()));
            assertEquals(Status.STALE_EPOCH, peer.raw(replicate(1, 5, "deposed", "d")).status());
            assertNull(backup.store().get(b("deposed")));
        }
    }

    @Test
    @Timeout(60)
    void shouldRefuseAWriteTheNewestMapMovedAwayWhileRoutingStillAdmitsIt() throws Exception
    {
        startPair(Map.of());
        try (RawClient client = RawClient.attached(primary))
        {
            assertEquals(Status.OK, client.put(b("k"), b("before")).status());
            // Node 2 is primary at epoch 6 (a cut-over or a failover); node 1 took the state but has not delivered it:
            // its routing still serves the range. Written here alone, the PUT would be lost at node 2.
            final List<ClusterMember> members = cluster.current().members();
            cluster.setUndelivered(ScriptedCluster.oneRange(6, members, 2, List.of(), List.of()));
            final var refused = client.put(b("k"), b("lost"));
            assertEquals(Status.WRONG_NODE, refused.status(), "sent on to the newest primary");
            assertEquals("127.0.0.1:" + backup.controlAddress().getPort(), refused.text());
            assertEquals(Status.WRONG_NODE, client.delete(b("k")).status());
            assertArrayEquals(b("before"), primary.store().get(b("k")), "nothing written at the old primary");
            assertArrayEquals(b("before"), backup.store().get(b("k")));
            // FENCED at the new primary too (node 1 primary again, but fenced): nothing is written either.
            cluster.setUndelivered(new ClusterState(7, members, List.of(new SlotRange(0, ClusterState.HASH_SLOT_COUNT - 1, 7,
                1, List.of(2), List.of(), SlotRange.State.FENCED))));
            assertEquals(Status.WRONG_NODE, client.put(b("k"), b("fenced")).status());
            assertArrayEquals(b("before"), primary.store().get(b("k")));
            cluster.set(ScriptedCluster.oneRange(8, members, 1, List.of(2), List.of()));
            assertEquals(Status.OK, client.put(b("k"), b("after")).status(), "LIVE again: served");
            assertArrayEquals(b("after"), backup.store().get(b("k")));
        }
    }

    /**
     * The history the fault tests recorded before writes carried ids: client A's PUT is applied and replicated, its
     * answer is lost in a failover; client B overwrites the key at the promoted backup and is acknowledged; A retries
     * its PUT there. Applied again, A's older value would come back after B's acknowledged write (non-linearizable).
     * The promoted backup remembers A's write from the primary's copy and answers the retry without applying it.
     */
    @Test
    @Timeout(60)
    void shouldAnswerARetryAtThePromotedBackupWithoutApplyingTheWriteAgain() throws Exception
    {
        startPair(Map.of());
        final long writerA = 0xA11CEL;
        final long writerB = 0xB0BL;
        try (RawClient a = RawClient.attached(primary))
        {
            assertEquals(Status.OK, a.put(b("k"), b("a-1"), writerA, 1, 1).status(), "applied at both nodes");
        }
        // Node 1 fails over to node 2 (its in-sync backup) before A saw its answer, in the story above.
        cluster.set(ScriptedCluster.oneRange(6, cluster.current().members(), 2, List.of(), List.of()));
        try (RawClient b = RawClient.attached(backup); RawClient aAgain = RawClient.attached(backup))
        {
            assertEquals(Status.OK, b.put(b("k"), b("b-1"), writerB, 1, 1).status());
            final RawClient.Reply retried = aAgain.put(b("k"), b("a-1"), writerA, 1, 1);
            assertEquals(Status.OK, retried.status(), "the retry learns its write was applied");
            assertArrayEquals(b("b-1"), backup.store().get(b("k")), "B's acknowledged write is not overwritten");
            assertArrayEquals(b("b-1"), aAgain.get(b("k")).value());
            assertTrue(aAgain.stats().text().contains("writes.retriesAnswered=1"), aAgain.stats().text());
            // A write A never sent before is applied as usual.
            assertEquals(Status.OK, aAgain.put(b("k"), b("a-2"), writerA, 2, 2).status());
            assertArrayEquals(b("a-2"), backup.store().get(b("k")));
        }
    }

        @Test
    @Timeout(60)
    void shouldSendTheClientOnWhenABackupSaysThePrimaryIsDeposed() throws Exception
    {
        startPair(Map.of());
        try (RawClient client = RawClient.attached(primary))
        {
            // Node 2 was made primary at epoch 6; node 1 has not heard of it and still replicates at epoch 5.
            cluster.lag(1);
            cluster.set(ScriptedCluster.oneRange(6, cluster.current().members(), 2, List.of(1), List.of()));
            final var refused = client.put(b("k"), b("v"));
            assertEquals(Status.WRONG_NODE, refused.status(), "a redirect the client follows after a map refresh");
            assertEquals("127.0.0.1:" + primary.controlAddress().getPort(), refused.text(),
                "its newest map names no other primary: the client refreshes its map");
            assertNull(backup.store().get(b("k")), "the new primary refused it");
        }
    }

    @Test
    @Timeout(60)
    void shouldRemoveADeadBackupFromTheInSyncSetBeforeTheNextAcknowledgement() throws Exception
    {
        startPair(Map.of("replication.timeoutMs", "5000"));
        try (RawClient client = RawClient.attached(primary))
        {
            assertEquals(Status.OK, client.put(b("before"), b("1")).status());
            final long id = sentWithTheDeadBackupsRemovalHeld(() -> client.sendPut(b("after"), b("2")),
                "the primary asked to remove the dead backup");
            assertEquals(1, cluster.removalRequests());
            assertEquals(List.of(2), cluster.current().ranges().get(0).backups(), "not removed yet");
            assertNull(client.poll(200), "no acknowledgement while the removal is not committed");
            cluster.release();
            final RawClient.Reply reply = client.poll(30_000);
            assertEquals(id, reply.correlationId());
            assertEquals(Status.OK, reply.status());
            assertEquals(List.of(), cluster.current().ranges().get(0).backups(), "acknowledged after the removal");
            assertEquals(6, cluster.current().ranges().get(0).epoch());
            // The next write goes to nobody else and is acknowledged at once.
            assertEquals(Status.OK, client.put(b("later"), b("3")).status());
            assertEquals(1, cluster.removalRequests());
        }
    }

    @Test
    @Timeout(60)
    void shouldAnswerWritesInArrivalOrderWhenALaterOneNeedsNoBackup() throws Exception
    {
        startPair(Map.of("replication.timeoutMs", "5000"));
        try (RawClient client = RawClient.attached(primary))
        {
            assertEquals(Status.OK, client.put(b("k"), b("v0")).status());
            final long first = sentWithTheDeadBackupsRemovalHeld(() -> client.sendPut(b("k"), b("v1")),
                "the first write waits for the dead backup's removal");
            // The coordinator drops the backup on its own meanwhile: the next write of the same key needs nobody.
            cluster.set(ScriptedCluster.oneRange(7, cluster.current().members(), 1, List.of(), List.of()));
            final long second = client.sendPut(b("k"), b("v2"));
            assertNull(client.poll(200), "the second write is not answered before the first");
            cluster.release(); // the held removal fails on the epoch; the state no longer lists the backup anyway
            final RawClient.Reply one = client.poll(30_000);
            final RawClient.Reply two = client.poll(30_000);
            assertEquals(first, one.correlationId(), "answered in arrival order");
            assertEquals(Status.OK, one.status(), "the backup is out of the in-sync set: the ISR rule holds");
            assertEquals(second, two.correlationId());
            assertEquals(Status.OK, two.status());
            final RawClient.Reply got = client.get(b("k"));
            assertArrayEquals(b("v2"), got.value(), "the pool holds the later write, not the earlier one");
        }
    }

    /**
     * The link to the backup drops with a write in flight (held in a proxy, then cut: the message is lost) while the
     * removal of the backup from the in-sync set waits. A later write must not go to the backup on the reconnected
     * link: it would leave a gap in the middle of what the backup applied, past which it reports its last sequence to
     * a new primary's reconcile, so the write missed in the gap is never reconciled. Both writes are answered once the
     * removal is committed.
     */
    @Test
    @Timeout(60)
    void shouldSendNoLaterWriteToABackupWhoseLinkDroppedWithAWriteInFlight() throws Exception
    {
        try (CuttableProxy proxy = startPairThroughProxy("10000");
            RawClient client = RawClient.attached(primary))
        {
            assertEquals(Status.OK, client.put(b("first"), b("1")).status(), "the link is up, through the proxy");
            proxy.pause();
            cluster.policy(ScriptedCluster.Policy.HOLD);
            final java.util.concurrent.CountDownLatch requested = cluster.nextRequest();
            final long lost = client.sendPut(b("lost"), b("2"));
            assertTrue(proxy.awaitHeld(30), "the write's REPLICATE is in the proxy");
            proxy.cut();
            assertTrue(requested.await(30, TimeUnit.SECONDS), "the drop asks the backup out of the in-sync set");

            final long later = client.sendPut(b("later"), b("3"));
            final long other = client.sendKeyRequest(MessageType.GET_REQUEST, b("other"));
            assertEquals(other, client.poll(30_000).correlationId(), "handled in order: the later write was too");
            assertFalse(primary.replicaLag().containsKey(2), "nothing sent to node 2 since its link dropped");
            final String stats = client.stats().text();
            assertTrue(stats.contains("replication.withheldAfterDrop=1"), stats);
            assertNull(backup.store().get(b("lost")));

            cluster.release();
            final RawClient.Reply one = client.poll(30_000);
            final RawClient.Reply two = client.poll(30_000);
            assertEquals(lost, one.correlationId());
            assertEquals(Status.OK, one.status(), "answered once the backup left the in-sync set");
            assertEquals(later, two.correlationId());
            assertEquals(Status.OK, two.status());
            assertEquals(List.of(), cluster.current().ranges().get(0).backups());
        }
    }

    /**
     * A backup that answers nothing (its link swallows every REPLICATE) while the primary keeps writing: the primary
     * keeps what the backup has not answered within the reconcile window a replica keeps per sender (512 KiB of keys:
     * 8,192 writes of 64-byte keys), so the next write is refused BUSY, nothing written; the writes in flight are
     * answered once the link drops and the backup leaves the in-sync set. Before, the primary sent on (up to the link's
     * 65,536 queued messages), and a stop then left writes in flight beyond what a new primary can reconcile.
     */
    @Test
    @Timeout(120)
    void shouldRefuseAWriteThatWouldLeaveABackupMoreUnansweredThanItsReconcileWindow() throws Exception
    {
        try (CuttableProxy proxy = startPairThroughProxy("60000");
            RawClient client = RawClient.attached(primary))
        {
            assertEquals(Status.OK, client.put(b("first"), b("1")).status(), "the link is up, through the proxy");
            proxy.swallow();
            final int fill = 512 * 1024 / 64;
            for (int i = 0; i < fill; i++)
            {
                client.sendPut(key64(i), b("v"));
            }
            final long refused = client.sendPut(key64(fill), b("v"));
            final RawClient.Reply reply = client.poll(60_000);
            assertEquals(refused, reply.correlationId(), "the first answer is the refusal: the others await node 2");
            assertEquals(Status.BUSY, reply.status());
            assertTrue(reply.text().contains("reconcile window"), reply.text());
            assertTrue(proxy.awaitHeld(30), "the backup's link swallowed the writes");
            assertNull(primary.store().get(key64(fill)), "nothing of the refused write was written");

            proxy.cut(); // the link drops with the writes in flight: node 2 leaves the in-sync set, they are answered
            for (int i = 0; i < fill; i++)
            {
                final RawClient.Reply written = client.poll(60_000);
                assertEquals(Status.OK, written.status(), "write " + i);
            }
            assertTrue(client.stats().text().contains("replication.windowFull=1"));
        }
    }

    private static byte[] key64(final int i)
    {
        return String.format("window-%057d", i).getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Two DELETEs of one key, the first still waiting for its backup (a held removal of the dead backup): the second
     * finds the key gone and is answered NOT_FOUND. The pool follows a write only once it is answered, so it still
     * holds the key while the first waits; the existence is read from RocksDB, which holds every write this node
     * accepted (the fault set once saw both DELETEs of one value answered found after a kill -9 failover).
     */
    @Test
    @Timeout(60)
    void shouldAnswerASecondDeleteOfAKeyWhoseFirstDeleteAwaitsItsBackupNotFound() throws Exception
    {
        startPair(Map.of("replication.timeoutMs", "5000"));
        try (RawClient client = RawClient.attached(primary))
        {
            assertEquals(Status.OK, client.put(b("k"), b("v0")).status());
            final long first = sentWithTheDeadBackupsRemovalHeld(
                () -> client.sendKeyRequest(MessageType.DELETE_REQUEST, b("k")),
                "the first DELETE waits for the dead backup's removal");
            final long second = client.sendKeyRequest(MessageType.DELETE_REQUEST, b("k"));
            // A read of another key is answered at once; the connection's requests are handled in order, so once it is
            // answered both DELETEs were applied to RocksDB, and neither is answered (nor in the pool) yet.
            final long other = client.sendKeyRequest(MessageType.GET_REQUEST, b("other"));
            final RawClient.Reply read = client.poll(30_000);
            assertEquals(other, read.correlationId(), "the read is answered before the held DELETEs");
            assertArrayEquals(b("v0"), client.oneSidedGet(primary.remoteKey(), primary.poolAddress(), b("k")),
                "the pool still holds the key: the first DELETE is unanswered");

            cluster.release();
            final RawClient.Reply one = client.poll(30_000);
            final RawClient.Reply two = client.poll(30_000);
            assertEquals(first, one.correlationId());
            assertEquals(Status.OK, one.status(), "the first DELETE found the key");
            assertEquals(second, two.correlationId());
            assertEquals(Status.NOT_FOUND, two.status(), "the second found it deleted (RocksDB), not in the pool");
            assertEquals(Status.NOT_FOUND, client.get(b("k")).status());
        }
    }

    /**
     * A refused conditional write decided while a PUT of its key awaits the backup: the decision reads RocksDB, which
     * holds the PUT; the pool shows it only once it is answered. Answered at once, the refusal showed the PUT while a
     * one-sided GET begun after it still read the older value (a stale read the fault set's compare-and-set histories
     * found); it is answered behind the PUT instead.
     */
    @Test
    @Timeout(60)
    void shouldAnswerARefusedConditionOnlyAfterTheWriteItReadIsAnswered() throws Exception
    {
        startPair(Map.of("replication.timeoutMs", "5000"));
        try (RawClient client = RawClient.attached(primary))
        {
            assertEquals(Status.OK, client.put(b("k"), b("v0")).status());
            final long put = sentWithTheDeadBackupsRemovalHeld(() -> client.sendPut(b("k"), b("v1")),
                "the PUT waits for the dead backup's removal");
            final long refused = client.sendRecordWrite(RecordWriteRequestFlyweight.OP_PUT_IF_ABSENT, 0, 0, b("k"),
                b("v2"));
            // The connection's requests are handled in order and answers leave in the order they are sent: had the
            // refusal been answered when decided, its answer would come before this read's.
            final long other = client.sendKeyRequest(MessageType.GET_REQUEST, b("other"));
            final RawClient.Reply read = client.poll(30_000);
            assertEquals(other, read.correlationId(), "the refusal waits behind the PUT it read");
            assertArrayEquals(b("v0"), client.oneSidedGet(primary.remoteKey(), primary.poolAddress(), b("k")),
                "the pool still holds the older value: the PUT is unanswered");

            cluster.release();
            final RawClient.Reply one = client.poll(30_000);
            final RawClient.Reply two = client.poll(30_000);
            assertEquals(put, one.correlationId());
            assertEquals(Status.OK, one.status());
            assertEquals(refused, two.correlationId());
            assertEquals(Status.CONDITION_FAILED, two.status(), "the key is present: refused");
            assertArrayEquals(b("v1"), client.oneSidedGet(primary.remoteKey(), primary.poolAddress(), b("k")),
                "once the refusal is answered the pool shows what it read");
        }
    }

    /**
     * The pool cannot hold every key, so a GET of a key it lacks reads RocksDB, which holds a PUT still awaiting its
     * backup (lost if the primary died now): the GET is answered only after that PUT, and what it read stays out of
     * the pool (one-sided readers see the PUT only once it is acknowledged). Fails without
     * {@code WritePath#holdsUnansweredWrites}: the GET answers the unacknowledged value at once and promotes it.
     */
    @Test
    @Timeout(60)
    void shouldAnswerAReadOfRocksDbOnlyAfterTheUnacknowledgedWriteItSaw() throws Exception
    {
        startPair(Map.of("replication.timeoutMs", "5000"));
        try (RawClient client = RawClient.attached(primary);
             RawClient reader = RawClient.attached(primary))
        {
            final byte[] big = new byte[60_000];
            final int keys = 200; // 12 MB of values in an 8 MiB pool: some are evicted, in RocksDB only
            for (int i = 0; i < keys; i++)
            {
                assertEquals(Status.OK, client.put(b("big-" + i), big).status());
            }
            assertEquals(Status.OK, client.put(b("small"), b("s")).status());
            assertArrayEquals(b("s"), client.oneSidedGet(primary.remoteKey(), primary.poolAddress(), b("small")));
            String evicted = null;
            for (int i = 0; i < keys && evicted == null; i++)
            {
                if (client.oneSidedGet(primary.remoteKey(), primary.poolAddress(), b("big-" + i)) == null)
                {
                    evicted = "big-" + i;
                }
            }
            assertNotNull(evicted, "the pool evicted a key");
            final byte[] key = b(evicted);

            final long put = sentWithTheDeadBackupsRemovalHeld(() -> client.sendPut(key, b("newer")),
                "the PUT waits for the dead backup's removal");
            final long get = reader.sendKeyRequest(MessageType.GET_REQUEST, key);
            final long other = reader.sendKeyRequest(MessageType.GET_REQUEST, b("small"));
            final RawClient.Reply first = reader.poll(30_000);
            assertEquals(other, first.correlationId(), "the read of RocksDB waits behind the PUT it saw");
            assertNull(client.oneSidedGet(primary.remoteKey(), primary.poolAddress(), key),
                "what it read is not in the pool while the PUT is unanswered");

            cluster.release();
            final RawClient.Reply written = client.poll(30_000);
            assertEquals(put, written.correlationId());
            assertEquals(Status.OK, written.status());
            final RawClient.Reply read = reader.poll(30_000);
            assertEquals(get, read.correlationId());
            assertEquals(Status.OK, read.status());
            assertArrayEquals(b("newer"), read.value());
        }
    }

    @Test
    @Timeout(60)
    void shouldFailRetryablyWhenTheDeadBackupCannotLeaveTheInSyncSet() throws Exception
    {
        startPair(Map.of("replication.timeoutMs", "5000"));
        try (RawClient client = RawClient.attached(primary))
        {
            assertEquals(Status.OK, client.put(b("before"), b("1")).status());
            backup.close();
            backup = null;
            cluster.policy(ScriptedCluster.Policy.REFUSE); // as a static map: nobody can change the in-sync set
            final RawClient.Reply reply = client.put(b("after"), b("2"));
            assertEquals(Status.BUSY, reply.status());
            assertTrue(reply.text().contains("retry"), reply.text());
            assertFalse(cluster.current().ranges().get(0).backups().isEmpty());
        }
    }

    private static byte[] replicate(final int sender, final long epoch, final String key, final String value)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[256]);
        final int length = new ReplicateRequestFlyweight().wrap(buffer, 0, 256)
            .header(MessageType.REPLICATE_REQUEST, 77)
            .write(sender, 0, 16_383, epoch, ReplicateRequestFlyweight.OP_PUT, new UnsafeBuffer(b(key)), 0, key.length(),
                new UnsafeBuffer(ValueRecord.of(b(value), 1, 0)), 0, ValueRecord.HEADER_LENGTH + value.length())
            .encodedLength();
        final byte[] bytes = new byte[length];
        buffer.getBytes(0, bytes);
        return bytes;
    }
}
