package io.rdmakv.server;

import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.cluster.ClusterMember;
import io.rdmakv.server.cluster.ClusterState;
import io.rdmakv.server.cluster.SlotRange;
import io.rdmakv.server.counters.ServerCounter;
import io.rdmakv.server.replication.ScriptedCluster;
import io.rdmakv.server.store.RocksStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A backup that stops and comes back resumes from what its store kept (the sequence it applied from the primary, kept
 * with its writes) instead of copying the whole range again: the primary sends only the keys written since, when its
 * own window still holds them all, and the whole range otherwise. Either way the returning node holds exactly the
 * primary's records before it is an in-sync backup again.
 */
class ResumedCatchUpTest
{
    private static final int OLD_KEYS = 2_000;

    @TempDir
    Path dir;

    private ScriptedCluster cluster;
    private KvServer primary;
    private KvServer backup;
    private RawClient client;
    private List<ClusterMember> members;
    private int backupControl;
    private int backupData;
    private String durability;

    private static byte[] b(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Node 1 primary of every slot, node 2 its in-sync backup, both under {@code durability}, OLD_KEYS written (and
     * acknowledged by both).
     */
    private void startPairAndWrite(final String durability) throws Exception
    {
        this.durability = durability;
        cluster = new ScriptedCluster();
        primary = KvServer.start(KvServerTest.testConfig(dir.resolve("n1"), Map.of("node.id", "1",
            "replication.timeoutMs", "1000", "durability", durability)), cluster.viewOf(1));
        backup = KvServer.start(KvServerTest.testConfig(dir.resolve("n2"), Map.of("node.id", "2",
            "replication.timeoutMs", "1000", "durability", durability)), cluster.viewOf(2));
        backupControl = backup.controlAddress().getPort();
        backupData = backup.dataAddress().getPort();
        client = RawClient.attached(primary);
        members = List.of(ReplicationTest.member(1, primary), ReplicationTest.member(2, backup));
        cluster.set(ScriptedCluster.oneRange(1, members, 1, List.of(2), List.of()));
        for (int i = 0; i < OLD_KEYS; i++)
        {
            assertEquals(Status.OK, client.put(b("old-" + i), b("v0-" + i)).status());
        }
    }

    @AfterEach
    void stop() throws Exception
    {
        for (final AutoCloseable c : new AutoCloseable[] {client, backup, primary, cluster})
        {
            if (c != null)
            {
                c.close();
            }
        }
    }

    /**
     * The backup stops; the first write after it waits until the primary asked it out of the in-sync set (the
     * coordinator here then lists it a learner, as the Ratis one does); {@code more} writes follow while it is down.
     */
    private void stopBackupAndWrite(final Runnable more) throws Exception
    {
        backup.close();
        backup = null;
        assertEquals(Status.OK, client.put(b("down-0"), b("d")).status());
        final SlotRange removed = cluster.current().ranges().get(0);
        assertEquals(List.of(), removed.backups(), "the stopped backup left the in-sync set");
        cluster.set(ScriptedCluster.oneRange(removed.epoch() + 1, members, 1, List.of(), List.of(2)));
        more.run();
    }

    private void restartBackup()
    {
        backup = KvServer.start(KvServerTest.testConfig(dir.resolve("n2"), Map.of("node.id", "2",
            "replication.timeoutMs", "1000", "durability", durability, "control.port", Integer.toString(backupControl),
            "data.port", Integer.toString(backupData))), cluster.viewOf(2));
    }

    private void untilInSyncAgain()
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!cluster.current().ranges().get(0).backups().contains(2) && System.nanoTime() < deadline)
        {
            Thread.onSpinWait();
        }
        assertEquals(List.of(2), cluster.current().ranges().get(0).backups(), "the backup is in sync again");
        assertEquals(List.of(), cluster.current().ranges().get(0).learners());
    }

    /**
     * OLD_KEYS written, then 51 keys while the backup was down (new keys, overwrites and deletions of old ones): the
     * returning backup is sent those 51 keys and nothing else, and holds every key as the primary does. On main the
     * whole range was dropped and copied again (2,031 entries).
     */
    @Test
    @Timeout(120)
    void shouldSendAReturningBackupOnlyTheKeysWrittenWhileItWasDown() throws Exception
    {
        onlyTheKeysWrittenWhileDown("DEFAULT");
    }

    /**
     * As above with both nodes under FSYNC: the sequence the backup applied went into the group commit's batch with
     * its writes ({@code KeptRecords}), so it resumes from there too.
     */
    @Test
    @Timeout(120)
    void shouldSendAReturningFsyncBackupOnlyTheKeysWrittenWhileItWasDown() throws Exception
    {
        onlyTheKeysWrittenWhileDown("FSYNC");
    }

    private void onlyTheKeysWrittenWhileDown(final String durability) throws Exception
    {
        startPairAndWrite(durability);
        stopBackupAndWrite(() ->
        {
            for (int i = 0; i < 20; i++)
            {
                assertEquals(Status.OK, put("down-new-" + i, "n-" + i));
                assertEquals(Status.OK, put("old-" + (i * 7), "v1-" + i));
            }
            for (int i = 0; i < 10; i++)
            {
                assertEquals(Status.OK, delete("old-" + (1_000 + i)));
            }
        });
        restartBackup();
        untilInSyncAgain();

        assertEquals(1, primary.counters().get(ServerCounter.CATCH_UPS_RESUMED), "the catch-up resumed");
        assertEquals(51, primary.counters().get(ServerCounter.CATCH_UP_KEYS_RESUMED),
            "only the keys written while it was down were sent");
        final Map<ByteBuffer, ByteBuffer> onPrimary = contents(primary.store());
        assertEquals(OLD_KEYS + 21 - 10, onPrimary.size());
        assertEquals(onPrimary, contents(backup.store()), "the backup holds exactly the primary's records");
        assertNull(backup.store().get(b("old-1000")), "a deletion while it was down reached it");
        // And it counts again: the next write is on it when acknowledged.
        assertEquals(Status.OK, put("after", "a"));
        assertEquals(ByteBuffer.wrap(primary.store().getRecord(b("after"))),
            ByteBuffer.wrap(backup.store().getRecord(b("after"))));
    }

    /**
     * Writes of the same keys keep coming while the resumed catch-up runs and while its promotion is held: none is
     * lost or reordered (a copy never overwrites what the tail wrote), and the backup ends equal to the primary.
     */
    @Test
    @Timeout(120)
    void shouldLoseNoWriteMadeWhileTheResumedCatchUpRuns() throws Exception
    {
        startPairAndWrite("DEFAULT");
        stopBackupAndWrite(() ->
        {
            for (int i = 0; i < 50; i++)
            {
                assertEquals(Status.OK, put("old-" + i, "while-down-" + i));
            }
        });
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicInteger written = new AtomicInteger();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final Thread writer = new Thread(() ->
        {
            try
            {
                for (int i = 0; !stop.get(); i++)
                {
                    final Status s = switch (i % 3)
                    {
                        case 0 -> put("old-" + (i % 60), "during-" + i);
                        case 1 -> delete("old-" + (i * 13 % 60));
                        default -> put("new-" + i, "n-" + i);
                    };
                    assertTrue(s == Status.OK || s == Status.NOT_FOUND, "write " + i + ": " + s);
                    written.incrementAndGet();
                }
            }
            catch (final Throwable t)
            {
                failure.set(t);
            }
        }, "resumed-catch-up-writer");
        writer.start();
        cluster.policy(ScriptedCluster.Policy.HOLD);
        final CountDownLatch promotionAsked = cluster.nextRequest();
        restartBackup();
        assertTrue(promotionAsked.await(60, TimeUnit.SECONDS), "the primary asked to promote the learner");
        final int atRequest = written.get();
        while (written.get() < atRequest + 100 && failure.get() == null)
        {
            Thread.onSpinWait();
        }
        cluster.policy(ScriptedCluster.Policy.COMMIT);
        cluster.release();
        untilInSyncAgain();
        final int atPromotion = written.get();
        while (written.get() < atPromotion + 100 && failure.get() == null)
        {
            Thread.onSpinWait();
        }
        stop.set(true);
        writer.join(30_000);
        if (failure.get() != null)
        {
            throw new AssertionError("writer failed", failure.get());
        }
        assertEquals(1, primary.counters().get(ServerCounter.CATCH_UPS_RESUMED), "the catch-up resumed");
        assertTrue(primary.counters().get(ServerCounter.CATCH_UP_KEYS_RESUMED) < OLD_KEYS,
            "not the whole range: " + primary.counters().get(ServerCounter.CATCH_UP_KEYS_RESUMED));
        assertEquals(contents(primary.store()), contents(backup.store()),
            "the backup holds exactly the primary's records");
    }

    /**
     * More key bytes written while the backup was down than the primary's window holds (512 KiB): the point the backup
     * kept lies before what the window still has, so the whole range is dropped and copied as for a new learner.
     */
    @Test
    @Timeout(120)
    void shouldCopyTheWholeRangeWhenTheWindowNoLongerHoldsTheWritesSinceTheBackupStopped() throws Exception
    {
        startPairAndWrite("DEFAULT");
        final String pad = "k".repeat(1_000);
        stopBackupAndWrite(() ->
        {
            for (int i = 0; i < 600; i++)
            {
                assertEquals(Status.OK, put(pad + i, "big-" + i));
            }
        });
        restartBackup();
        untilInSyncAgain();

        assertEquals(0, primary.counters().get(ServerCounter.CATCH_UPS_RESUMED), "not resumed: the whole range");
        final Map<ByteBuffer, ByteBuffer> onPrimary = contents(primary.store());
        assertEquals(OLD_KEYS + 601, onPrimary.size());
        assertEquals(onPrimary, contents(backup.store()), "the backup holds exactly the primary's records");
    }

    private Status put(final String key, final String value)
    {
        try
        {
            return client.put(b(key), b(value)).status();
        }
        catch (final Exception ex)
        {
            throw new AssertionError(ex);
        }
    }

    private Status delete(final String key)
    {
        try
        {
            return client.delete(b(key)).status();
        }
        catch (final Exception ex)
        {
            throw new AssertionError(ex);
        }
    }

    private static Map<ByteBuffer, ByteBuffer> contents(final RocksStore store)
    {
        final Map<ByteBuffer, ByteBuffer> all = new HashMap<>();
        store.ranges().scan(0, ClusterState.HASH_SLOT_COUNT - 1, (k, v) ->
        {
            all.put(ByteBuffer.wrap(k), ByteBuffer.wrap(v));
            return true;
        });
        return all;
    }
}
