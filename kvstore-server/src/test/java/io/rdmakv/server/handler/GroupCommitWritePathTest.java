package io.rdmakv.server.handler;

import io.rdmakv.protocol.layout.HashedKey;
import io.rdmakv.protocol.wire.PutRequestFlyweight;
import io.rdmakv.protocol.wire.ResponseFlyweight;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.counters.ServerCounters;
import io.rdmakv.server.store.Durability;
import io.rdmakv.server.store.RocksStore;
import io.rdmakv.transport.Endpoint;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * FSYNC's path holds the answer of a request that wrote nothing behind the writes the committer still has: the
 * decision read RocksDB, where the committer put them before their report (and so the pool's update) came back. The
 * reports reach the path only when the test's thread drains them ({@link GroupCommitWritePath#doWork}), so the order
 * checked is exact, not timed.
 */
class GroupCommitWritePathTest
{
    @TempDir
    Path dir;

    private final List<String> outcomes = new ArrayList<>();
    private final WriteOutcome recording = new WriteOutcome()
    {
        @Override
        public void putDurable(final Endpoint endpoint, final long correlationId, final HashedKey key,
            final DirectBuffer value, final int valueIndex, final int valueLength)
        {
            outcomes.add(correlationId + " put");
        }

        @Override
        public void deleteDurable(final Endpoint endpoint, final long correlationId, final HashedKey key,
            final boolean existed)
        {
            outcomes.add(correlationId + " delete");
        }

        @Override
        public void failed(final Endpoint endpoint, final long correlationId, final Status status,
            final String reason)
        {
            outcomes.add(correlationId + " " + status);
        }

        @Override
        public void unwritten(final Endpoint endpoint, final long correlationId, final Status status,
            final long dataVersion, final long expiryMillis, final String reason)
        {
            outcomes.add(correlationId + " " + status + " v" + dataVersion);
        }
    };

    private static final class Silent extends AnsweringEndpoint
    {
        @Override
        protected void onResponse(final ResponseFlyweight response)
        {
        }
    }

    @Test
    @Timeout(60)
    void shouldAnswerAnUnwrittenRequestOnlyAfterTheWritesTheCommitterHadBeforeIt()
    {
        try (RocksStore store = RocksStore.open(dir, Durability.FSYNC))
        {
            final GroupCommitWritePath path = new GroupCommitWritePath(store, new ServerCounters(), recording,
                () -> { });
            final Endpoint endpoint = new Silent();
            final UnsafeBuffer keyBytes = new UnsafeBuffer("k".getBytes(StandardCharsets.US_ASCII));
            final HashedKey key = new HashedKey().wrap(keyBytes, 0, 1);
            final PutRequestFlyweight request = new PutRequestFlyweight()
                .wrap(new UnsafeBuffer(new byte[64]), 0, 64);
            final UnsafeBuffer value = new UnsafeBuffer(new byte[] {1, 2, 3});

            path.answerUnwritten(endpoint, 1, key, Status.NOT_FOUND, 0, 0, null);
            assertEquals(List.of("1 NOT_FOUND v0"), outcomes, "nothing with the committer: answered at once");

            path.put(endpoint, 2, request, key, value, 0, 3);
            path.put(endpoint, 3, request, key, value, 0, 3);
            path.answerUnwritten(endpoint, 4, key, Status.CONDITION_FAILED, 77, 0, null);
            path.put(endpoint, 5, request, key, value, 0, 3);
            assertEquals(List.of("1 NOT_FOUND v0"), outcomes, "nothing reported before the thread drains the reports");
            while (path.inFlightWrites() > 0)
            {
                path.doWork();
                Thread.onSpinWait();
            }
            assertEquals(List.of("1 NOT_FOUND v0", "2 put", "3 put", "4 CONDITION_FAILED v77", "5 put"), outcomes,
                "the refusal is answered after the writes before it and before the one after it");
        }
    }

    /**
     * The writes of a moment are reported while later ones are still with the committer: what a new primary's
     * reconcile waits for (its replica writes accepted before the take-over), so a steady stream of other primaries'
     * writes cannot hold it for ever, as waiting for nothing in flight could.
     */
    @Test
    @Timeout(60)
    void shouldSayWhenTheWritesAcceptedBeforeAMarkAreReportedWhileLaterOnesAreInFlight()
    {
        try (RocksStore store = RocksStore.open(dir, Durability.FSYNC))
        {
            final GroupCommitWritePath path = new GroupCommitWritePath(store, new ServerCounters(), recording,
                () -> { });
            final Endpoint endpoint = new Silent();
            final HashedKey key = new HashedKey().wrap(new UnsafeBuffer("k".getBytes(StandardCharsets.US_ASCII)), 0, 1);
            final PutRequestFlyweight request = new PutRequestFlyweight()
                .wrap(new UnsafeBuffer(new byte[64]), 0, 64);
            final UnsafeBuffer value = new UnsafeBuffer(new byte[] {1, 2, 3});

            assertTrue(path.reportedThrough(path.acceptedMark()), "nothing accepted: nothing to wait for");
            path.put(endpoint, 1, request, key, value, 0, 3);
            path.put(endpoint, 2, request, key, value, 0, 3);
            final long mark = path.acceptedMark();
            assertFalse(path.reportedThrough(mark), "reports reach the path only through doWork");
            while (!path.reportedThrough(mark))
            {
                path.doWork();
                Thread.onSpinWait();
            }
            assertEquals(List.of("1 put", "2 put"), outcomes);
            path.put(endpoint, 3, request, key, value, 0, 3);
            assertTrue(path.inFlightWrites() > 0, "a later write is with the committer");
            assertTrue(path.reportedThrough(mark), "and the writes before the mark stay reported");
            assertFalse(path.reportedThrough(path.acceptedMark()), "the later one is not");
            while (path.inFlightWrites() > 0)
            {
                path.doWork();
                Thread.onSpinWait();
            }
        }
    }
}
