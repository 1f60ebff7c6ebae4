package io.rdmakv.server;

import io.rdmakv.protocol.layout.KeyHash;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.cluster.ClusterMember;
import io.rdmakv.server.cluster.ClusterState;
import io.rdmakv.server.cluster.ClusterView;
import io.rdmakv.server.cluster.SlotRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Request handling follows the cluster view: a node serves the ranges it is primary of, sends the others to their
 * primary (WRONG_NODE with its address), and serves nothing while its lease is not held or its range is FENCED
 * (WRONG_NODE naming itself, so the client refreshes and retries). The view is driven by hand.
 */
@Timeout(60)
class ClusterRoutingTest
{
    @TempDir
    Path dir;

    /** A view the test sets: state and lease. */
    static final class HandView implements ClusterView
    {
        private final List<Consumer<ClusterState>> listeners = new CopyOnWriteArrayList<>();
        private volatile ClusterState state = new ClusterState(0, List.of(), List.of());
        private volatile boolean lease = true;

        void set(final ClusterState next)
        {
            state = next;
            listeners.forEach(l -> l.accept(next));
        }

        @Override
        public int localNodeId()
        {
            return 1;
        }

        @Override
        public ClusterState current()
        {
            return state;
        }

        @Override
        public void subscribe(final Consumer<ClusterState> listener)
        {
            listeners.add(listener);
        }

        @Override
        public CompletableFuture<ClusterState> removeFromInSync(final int firstSlot, final long epoch, final int node)
        {
            return CompletableFuture.failedFuture(new IllegalStateException("not in this test"));
        }

        @Override
        public CompletableFuture<ClusterState> promoteLearner(final int firstSlot, final long epoch, final int node)
        {
            return CompletableFuture.failedFuture(new IllegalStateException("not in this test"));
        }

        @Override
        public boolean holdsLease(final long nowNanos)
        {
            return lease;
        }

        @Override
        public long leaseDeadlineNanos()
        {
            return lease ? System.nanoTime() + 60_000_000_000L : Long.MIN_VALUE;
        }

        @Override
        public void close()
        {
        }
    }

    private static byte[] keyIn(final boolean lowHalf)
    {
        for (int i = 0; ; i++)
        {
            final byte[] k = ("key-" + i).getBytes(StandardCharsets.UTF_8);
            if (KeyHash.hashSlot(k) < 8192 == lowHalf)
            {
                return k;
            }
        }
    }

    private static ClusterState state(final long epoch, final ClusterMember self, final int secondPrimary,
        final SlotRange.State firstState)
    {
        final ClusterMember other = new ClusterMember(2, "10.9.9.9", 7777, 7778);
        return new ClusterState(epoch, List.of(self, other), List.of(
            new SlotRange(0, 8191, epoch, 1, List.of(), List.of(), firstState),
            new SlotRange(8192, ClusterState.HASH_SLOT_COUNT - 1, epoch, secondPrimary, List.of(), List.of(),
                SlotRange.State.LIVE)));
    }

    @Test
    void shouldServeItsRangesRedirectOthersAndServeNothingWithoutLeaseOrWhenFenced() throws Exception
    {
        final HandView view = new HandView();
        try (KvServer server = KvServer.start(KvServerTest.testConfig(dir, Map.of("node.id", "1")), view);
             RawClient client = RawClient.attached(server))
        {
            final ClusterMember self = new ClusterMember(1, "127.0.0.1", server.controlAddress().getPort(),
                server.dataAddress().getPort());
            final String selfAddress = server.config().advertisedHost() + ":" + server.controlAddress().getPort();
            final byte[] mine = keyIn(true);
            final byte[] theirs = keyIn(false);

            assertEquals(Status.WRONG_NODE, client.put(mine, mine).status(), "no layout yet: nothing is served");
            view.set(state(2, self, 2, SlotRange.State.LIVE));
            assertEquals(Status.OK, client.put(mine, mine).status());
            final RawClient.Reply redirected = client.put(theirs, theirs);
            assertEquals(Status.WRONG_NODE, redirected.status());
            assertEquals("10.9.9.9:7777", redirected.text(), "sent to the range's primary");

            view.lease = false;
            final RawClient.Reply noLease = client.get(mine);
            assertEquals(Status.WRONG_NODE, noLease.status(), "without its lease a node serves nothing");
            assertEquals(selfAddress, noLease.text(), "named itself: the client refreshes and retries");
            assertEquals(Status.WRONG_NODE, client.put(mine, mine).status());
            view.lease = true;
            assertEquals(Status.OK, client.get(mine).status());

            view.set(state(3, self, 2, SlotRange.State.FENCED));
            assertEquals(Status.WRONG_NODE, client.get(mine).status(), "a FENCED range is not served");
            view.set(state(4, self, 1, SlotRange.State.LIVE));
            assertEquals(Status.OK, client.put(theirs, theirs).status(), "a range it became primary of is served");
        }
    }
}
