package io.rdmakv.server.replication;

import io.rdmakv.protocol.layout.HashedKey;
import io.rdmakv.protocol.layout.ValueRecord;
import io.rdmakv.protocol.wire.BatchWriteRequestFlyweight;
import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.ReplicateRequestFlyweight;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.cluster.ClusterMember;
import io.rdmakv.server.handler.LocalWrites;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What a replica's gate keeps of an atomic batch (REPLICATE BATCH) for the reconcile and catch-up windows: every key of
 * it in the sender's window under the batch's one sequence (a new primary's reconcile learns and fixes up each key),
 * each fix-up of one of its keys taking the batch's write id back, and every key in a catch-up's tail memory (a
 * checkpoint copy never overwrites what the batch wrote).
 */
class BatchReplicaGateTest
{
    private static final long WRITER = 0xbeefL;

    private static byte[] b(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] record(final String value)
    {
        final byte[] record = new byte[ValueRecord.HEADER_LENGTH + value.length()];
        ValueRecord.writeHeader(new UnsafeBuffer(record), 0, 0x100 | 1, 0);
        System.arraycopy(b(value), 0, record, ValueRecord.HEADER_LENGTH, value.length());
        return record;
    }

    @Test
    void shouldRecordEveryKeyOfABatchForReconcileAndCatchUp()
    {
        try (ScriptedCluster cluster = new ScriptedCluster())
        {
            final List<ClusterMember> members = List.of(new ClusterMember(1, "127.0.0.1", 1, 2),
                new ClusterMember(2, "127.0.0.1", 3, 4), new ClusterMember(3, "127.0.0.1", 5, 6));
            // Node 2 a learner of node 1's range: a catch-up; node 3 an in-sync backup.
            cluster.set(ScriptedCluster.oneRange(5, members, 1, List.of(3), List.of(2)));
            final ReplicaHistory history = new ReplicaHistory(1024, 16 * 1024, LocalWrites.NONE);
            final ReplicaGate gate = new ReplicaGate(history);
            gate.follow(cluster.viewOf(2));
            final UnsafeBuffer buffer = new UnsafeBuffer(new byte[2048]);
            final ReplicateRequestFlyweight m = new ReplicateRequestFlyweight().wrap(buffer, 0, 2048);
            final HashedKey key = new HashedKey();

            m.header(MessageType.REPLICATE_REQUEST, 1).write(1, 0, 16_383, 5, ReplicateRequestFlyweight.OP_DROP,
                new UnsafeBuffer(new byte[0]), 0, 0, new UnsafeBuffer(new byte[0]), 0, 0);
            m.wrap(buffer, 0, m.encodedLength()).validate();
            assertEquals(Status.OK, gate.admit(m, null), "the catch-up begins");

            final List<byte[]> keys = List.of(b("{t}:a"), b("{t}:b"), b("{t}:c"));
            final List<byte[]> values = Arrays.asList(record("1"), record("2"), null);
            final byte[] entries = BatchWriteRequestFlyweight.encodeEntries(keys, values);
            m.wrap(buffer, 0, 2048).header(MessageType.REPLICATE_REQUEST, 2)
                .writeBatch(1, 0, 16_383, 5, 3, new UnsafeBuffer(entries), 0, entries.length)
                .appendWriteId(WRITER, 7, 1);
            m.appendSequence(0x77, 9);
            m.wrap(buffer, 0, m.encodedLength()).validate();
            final int firstKey = BatchWriteRequestFlyweight.entryKeyIndex(m.batchEntriesIndex());
            assertEquals(Status.OK, gate.admit(m, key.wrap(buffer, firstKey, keys.get(0).length)));

            final SenderWindow window = history.window(1);
            assertEquals(3, window.size(), "every key of the batch, one entry each");
            assertEquals(9, window.lastSequence(), "under the batch's one sequence");
            assertEquals(3, gate.tailKeyCount(0), "the catch-up remembers every key the batch wrote");

            // A checkpoint copy of a key the batch wrote is acknowledged, not applied; of another key, applied.
            final byte[] old = record("old");
            for (final String k : new String[] {"{t}:a", "{t}:c", "{t}:z"})
            {
                m.wrap(buffer, 0, 2048).header(MessageType.REPLICATE_REQUEST, 3).write(1, 0, 16_383, 5,
                    ReplicateRequestFlyweight.OP_COPY, new UnsafeBuffer(b(k)), 0, k.length(), new UnsafeBuffer(old), 0,
                    old.length);
                m.wrap(buffer, 0, m.encodedLength()).validate();
                assertEquals(k.equals("{t}:z") ? Status.OK : Status.NOT_FOUND,
                    gate.admit(m, key.wrap(buffer, m.keyIndex(), m.keyLength())), k);
            }

            // Node 3 takes the range over and asks what node 2 applied of node 1 past nothing: the batch's keys. Its
            // fix-up of any of them takes the batch's write id back (a retry must apply the batch again there).
            final UnsafeBuffer answer = new UnsafeBuffer(new byte[4096]);
            m.wrap(buffer, 0, 2048).header(MessageType.REPLICATE_REQUEST, 4)
                .writeReconcile(3, 0, 16_383, 6, 1, 0x77, 0);
            cluster.set(ScriptedCluster.oneRange(6, members, 3, List.of(2), List.of()));
            m.wrap(buffer, 0, m.encodedLength()).validate();
            assertEquals(Status.OK, gate.admit(m, null));
            final int length = gate.answerReconcile(m, answer, 0, answer.capacity());
            final String text = new String(answer.byteArray(), 0, length, StandardCharsets.ISO_8859_1);
            for (final byte[] k : keys)
            {
                assertEquals(true, text.contains(new String(k, StandardCharsets.ISO_8859_1)),
                    "the reconcile answer names " + new String(k, StandardCharsets.UTF_8));
            }
            final List<Long> taken = new ArrayList<>();
            m.wrap(buffer, 0, 2048).header(MessageType.REPLICATE_REQUEST, 5).write(3, 0, 16_383, 6,
                ReplicateRequestFlyweight.OP_DELETE, new UnsafeBuffer(keys.get(1)), 0, keys.get(1).length,
                new UnsafeBuffer(new byte[0]), 0, 0);
            m.appendSequence(0x99, 1).markFixUp();
            m.wrap(buffer, 0, m.encodedLength()).validate();
            gate.takeRevertedWriteIds(m, key.wrap(buffer, m.keyIndex(), m.keyLength()),
                (writer, sequence) -> taken.add(writer * 1000 + sequence));
            assertEquals(List.of(WRITER * 1000 + 7), taken, "the batch's write id, taken back with its key's fix-up");
        }
    }
}
