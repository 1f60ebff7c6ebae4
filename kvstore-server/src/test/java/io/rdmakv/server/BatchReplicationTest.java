package io.rdmakv.server;

import io.rdmakv.protocol.wire.BatchWriteRequestFlyweight;
import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.replication.ScriptedCluster;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Atomic batches between in-process nodes over TCP (node 1 primary of every slot, node 2 its in-sync backup): an
 * acknowledged batch is on the backup whole, byte for byte, in its store and pool; a retry of its write id at the
 * promoted backup is answered without applying it again. Under each durability, and with a DEFAULT primary and an
 * FSYNC backup: each node applies the batch through its own local path (FSYNC: one unit of its group commit).
 */
class BatchReplicationTest
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

    private void startPair(final String primaryDurability, final String backupDurability)
    {
        primary = KvServer.start(KvServerTest.testConfig(dir.resolve("n1"), Map.of("node.id", "1",
            "durability", primaryDurability)), cluster.viewOf(1));
        backup = KvServer.start(KvServerTest.testConfig(dir.resolve("n2"), Map.of("node.id", "2",
            "durability", backupDurability)), cluster.viewOf(2));
        cluster.set(ScriptedCluster.oneRange(5, List.of(ReplicationTest.member(1, primary),
            ReplicationTest.member(2, backup)), 1, List.of(2), List.of()));
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

    /** A BATCH_WRITE of pairs (value null: DELETE), with a write id when {@code writer} is not 0. */
    static byte[] batch(final long writer, final long sequence, final String... pairs)
    {
        final List<byte[]> keys = new ArrayList<>();
        final List<byte[]> values = new ArrayList<>();
        for (int i = 0; i < pairs.length; i += 2)
        {
            keys.add(b(pairs[i]));
            values.add(pairs[i + 1] == null ? null : b(pairs[i + 1]));
        }
        final byte[] entries = BatchWriteRequestFlyweight.encodeEntries(keys, values);
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[BatchWriteRequestFlyweight.ENTRIES_OFFSET +
            entries.length + 24]);
        final BatchWriteRequestFlyweight w = new BatchWriteRequestFlyweight().wrap(buffer, 0, buffer.capacity());
        w.header(MessageType.BATCH_WRITE_REQUEST, 4343).write(keys.size(), new UnsafeBuffer(entries), 0,
            entries.length);
        if (writer != 0)
        {
            w.appendWriteId(writer, sequence, sequence);
        }
        final byte[] bytes = new byte[w.encodedLength()];
        buffer.getBytes(0, bytes);
        return bytes;
    }

    @ParameterizedTest(name = "primary {0}, backup {1}")
    @CsvSource({"DEFAULT, DEFAULT", "FSYNC, FSYNC", "DEFAULT, FSYNC"})
    @Timeout(60)
    void shouldHaveEveryEntryOfAnAcknowledgedBatchOnTheBackup(final String primaryDurability,
        final String backupDurability) throws Exception
    {
        startPair(primaryDurability, backupDurability);
        try (RawClient client = RawClient.attached(primary); RawClient reader = RawClient.attached(backup))
        {
            assertEquals(Status.OK, client.put(b("{acct}:gone"), b("x")).status());
            assertNotNull(backup.store().get(b("{acct}:gone")));
            for (int round = 0; round < 20; round++)
            {
                final RawClient.Reply done = client.raw(batch(0, 0, "{acct}:alice", "a" + round, "{acct}:bob",
                    "b" + round, "{acct}:carol", "c" + round, "{acct}:gone", null));
                assertEquals(Status.OK, done.status(), "round " + round);
                // Acknowledged: the backup holds the whole batch durably, the primary's records verbatim.
                for (final String k : new String[] {"{acct}:alice", "{acct}:bob", "{acct}:carol"})
                {
                    assertArrayEquals(primary.store().getRecord(b(k)), backup.store().getRecord(b(k)),
                        k + " in round " + round);
                }
                assertArrayEquals(b("b" + round), backup.store().get(b("{acct}:bob")));
                assertNull(backup.store().get(b("{acct}:gone")));
                assertNull(primary.store().get(b("{acct}:gone")));
            }
            // The backup applied the batch to its pool too (warm for a promotion): one-sided reads of it.
            assertArrayEquals(b("a19"), reader.oneSidedGet(backup.remoteKey(), backup.poolAddress(),
                b("{acct}:alice")));
            assertArrayEquals(b("c19"), reader.oneSidedGet(backup.remoteKey(), backup.poolAddress(),
                b("{acct}:carol")));
            assertEquals(Status.CROSSSLOT, client.raw(batch(0, 0, "{acct}:alice", "z", "{other}:x", "z")).status());
            assertArrayEquals(b("a19"), backup.store().get(b("{acct}:alice")), "a refused batch reaches no replica");
            assertEquals(0, cluster.removalRequests(), "the backup acknowledged every batch");
            final String stats = client.stats().text();
            assertTrue(stats.contains("batchWrites=20\n") && stats.contains("batchWrites.crossSlot=1\n"), stats);
        }
    }

    @ParameterizedTest(name = "primary {0}, backup {1}")
    @CsvSource({"DEFAULT, DEFAULT", "FSYNC, FSYNC", "DEFAULT, FSYNC"})
    @Timeout(60)
    void shouldAnswerARetriedBatchAtThePromotedBackupWithoutApplyingItAgain(final String primaryDurability,
        final String backupDurability) throws Exception
    {
        startPair(primaryDurability, backupDurability);
        final long writerA = 0xA11CEL;
        final long writerB = 0xB0BL;
        try (RawClient a = RawClient.attached(primary))
        {
            assertEquals(Status.OK, a.raw(batch(writerA, 1, "{t}:x", "a-1", "{t}:y", "a-1")).status());
        }
        // Node 1 fails over to node 2 (its in-sync backup) before A saw its answer.
        cluster.set(ScriptedCluster.oneRange(6, cluster.current().members(), 2, List.of(), List.of()));
        try (RawClient bClient = RawClient.attached(backup); RawClient aAgain = RawClient.attached(backup))
        {
            assertEquals(Status.OK, bClient.put(b("{t}:x"), b("b-1"), writerB, 1, 1).status());
            final RawClient.Reply retried = aAgain.raw(batch(writerA, 1, "{t}:x", "a-1", "{t}:y", "a-1"));
            assertEquals(Status.OK, retried.status(), "the retry learns its batch was applied");
            assertArrayEquals(b("b-1"), backup.store().get(b("{t}:x")), "B's acknowledged write is not overwritten");
            assertArrayEquals(b("a-1"), backup.store().get(b("{t}:y")));
            assertTrue(aAgain.stats().text().contains("writes.retriesAnswered=1"), aAgain.stats().text());
        }
    }
}
