package io.rdmakv.server.replication;

import io.rdmakv.protocol.layout.HashedKey;
import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.ReplicateRequestFlyweight;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.cluster.ClusterMember;
import io.rdmakv.server.handler.LocalWrites;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The replica's gate records each sequenced write in its sender's window without allocating. */
class ReplicaGateTest
{
    /** Each message's key, hashed as the replica's inbox hashes it on arrival. */
    private static final HashedKey KEY = new HashedKey();

    @Test
    void shouldRecordSequencedWritesWithoutAllocating()
    {
        try (ScriptedCluster cluster = new ScriptedCluster())
        {
            final List<ClusterMember> members = List.of(new ClusterMember(1, "127.0.0.1", 1, 2),
                new ClusterMember(2, "127.0.0.1", 3, 4));
            cluster.set(ScriptedCluster.oneRange(5, members, 1, List.of(2), List.of()));
            final ReplicaHistory history = new ReplicaHistory(1024, 16 * 1024, LocalWrites.NONE);
            final ReplicaGate gate = new ReplicaGate(history);
            gate.follow(cluster.viewOf(2));

            final UnsafeBuffer buffer = new UnsafeBuffer(new byte[256]);
            final byte[] key = "user:000000".getBytes(StandardCharsets.US_ASCII);
            final byte[] value = "value".getBytes(StandardCharsets.US_ASCII);
            final ReplicateRequestFlyweight message = new ReplicateRequestFlyweight().wrap(buffer, 0, 256);
            message.header(MessageType.REPLICATE_REQUEST, 1).write(1, 0, 16_383, 5, ReplicateRequestFlyweight.OP_PUT,
                new UnsafeBuffer(key), 0, key.length, new UnsafeBuffer(value), 0, value.length);
            message.appendSequence(77, 1);
            final int length = message.encodedLength();
            final ReplicateRequestFlyweight request = new ReplicateRequestFlyweight();

            final int rounds = 20_000;
            admit(gate, request, buffer, length, 1, rounds); // warm up (JIT), and the window is allocated once
            final com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
            final long before = threads.getCurrentThreadAllocatedBytes();
            admit(gate, request, buffer, length, rounds + 1, rounds);
            final long allocated = threads.getCurrentThreadAllocatedBytes() - before;

            final SenderWindow window = history.window(1);
            assertEquals(77, window.incarnation());
            assertEquals(2L * rounds, window.lastSequence());
            assertEquals(1024, window.size(), "full: the oldest entries went");
            // One small object per write would be >= 320 KB.
            assertTrue(allocated < 16 * 1024, "allocated " + allocated + " bytes for " + rounds + " writes");
        }
    }

    private static void admit(final ReplicaGate gate, final ReplicateRequestFlyweight request,
        final UnsafeBuffer buffer, final int length, final long first, final int rounds)
    {
        for (long s = first; s < first + rounds; s++)
        {
            buffer.putLong(length - 8, s, ByteOrder.LITTLE_ENDIAN);
            buffer.putByte(ReplicateRequestFlyweight.KEY_OFFSET + 5 + (int)(s % 6), (byte)('0' + s % 10));
            request.wrap(buffer, 0, length).validate();
            if (gate.admit(request, KEY.wrap(buffer, request.keyIndex(), request.keyLength())) != Status.OK)
            {
                throw new AssertionError("write " + s + " refused");
            }
        }
    }
}
