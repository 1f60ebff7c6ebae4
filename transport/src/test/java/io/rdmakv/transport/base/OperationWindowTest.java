package io.rdmakv.transport.base;

import io.rdmakv.transport.CompletionHandler;
import io.rdmakv.transport.TransportStatus;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The operation window on an injected clock, single-threaded: credits, the bounded pending queue, expiry, failing
 * everything once, and request ids that a late answer cannot confuse.
 */
class OperationWindowTest
{
    private static final long TIMEOUT = 1_000;

    private final CachedNanoClock clock = new CachedNanoClock();
    /** Every completion, in order: request id and status. */
    private final List<Long> completedIds = new ArrayList<>();
    private final Map<Long, List<TransportStatus>> statuses = new HashMap<>();
    private final CompletionHandler recorder = (status, id) ->
    {
        completedIds.add(id);
        statuses.computeIfAbsent(id, k -> new ArrayList<>()).add(status);
    };
    /** What the fake wire has posted, in order. */
    private final List<Long> posted = new ArrayList<>();
    private OperationWindow<TestOperation> window;
    /** The fake endpoint's state: the window admits nothing while it refuses. */
    private final EndpointLifecycle lifecycle = new EndpointLifecycle();

    @BeforeEach
    void setUp()
    {
        clock.update(0);
        window = new OperationWindow<>(TestOperation::new, 2, 3, TIMEOUT, clock);
        lifecycle.connect();
    }

    @Test
    void shouldQueueBeyondItsCreditsAndDrainInOrder()
    {
        for (int i = 0; i < 5; i++)
        {
            assertEquals(i, submit());
        }
        assertEquals(List.of(0L, 1L), posted);
        assertEquals(5, window.outstanding());

        answer(0, TransportStatus.OK);
        promote();
        assertEquals(List.of(0L, 1L, 2L), posted);
        answer(1, TransportStatus.OK);
        answer(2, TransportStatus.OK);
        promote();
        answer(3, TransportStatus.OK);
        answer(4, TransportStatus.OK);

        assertEquals(List.of(0L, 1L, 2L, 3L, 4L), posted);
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L), completedIds);
        assertEquals(0, window.outstanding());
    }

    @Test
    void shouldBackPressureWhenCreditsAndQueueAreFull()
    {
        for (int i = 0; i < 5; i++)
        {
            submit();
        }
        assertEquals(TransportStatus.BACK_PRESSURED.sentinel(), submit());
        assertEquals(5, window.outstanding());

        answer(0, TransportStatus.OK);
        promote();
        assertEquals(5, submit()); // a credit came back and a pending one took it: room in the queue again
        assertEquals(TransportStatus.BACK_PRESSURED.sentinel(), submit());
    }

    @Test
    void shouldExpireExactlyTheExpiredIds()
    {
        submit(); // 0 in flight, t=0
        submit(); // 1 in flight, t=0
        submit(); // 2 pending, t=0
        clock.update(400);
        submit(); // 3 pending, t=400

        clock.update(TIMEOUT - 1);
        assertEquals(0, window.expire(clock.nanoTime()));
        clock.update(TIMEOUT);
        assertEquals(3, window.expire(clock.nanoTime()));

        assertEquals(List.of(0L, 1L, 2L), sorted(completedIds));
        for (long id = 0; id < 3; id++)
        {
            assertEquals(List.of(TransportStatus.TIMED_OUT), statuses.get(id));
        }
        assertEquals(1, window.outstanding()); // 3 still waits for a credit
        promote();
        assertEquals(List.of(0L, 1L, 3L), posted);

        clock.update(400 + TIMEOUT);
        assertEquals(1, window.expire(clock.nanoTime()));
        assertEquals(List.of(TransportStatus.TIMED_OUT), statuses.get(3L));
        assertEquals(0, window.outstanding());
    }

    @Test
    void shouldFailEveryPendingAndInflightOperationExactlyOnceOnClose()
    {
        for (int i = 0; i < 5; i++)
        {
            submit();
        }
        final TestOperation answeredBeforeClose;
        synchronized (window.lock())
        {
            answeredBeforeClose = window.inflight().take(1);
        }
        answeredBeforeClose.status(TransportStatus.OK);

        assertTrue(lifecycle.requestClose());
        assertTrue(lifecycle.beginClose(TransportStatus.CLOSED, "closed locally"));
        assertEquals(4, failAll());
        window.complete(answeredBeforeClose); // its answer was taken before the close: it completes with its own
        assertEquals(0, failAll());
        window.complete(answeredBeforeClose); // a second completion of the same operation is refused
        assertEquals(0, window.expire(Long.MAX_VALUE));

        assertEquals(5, completedIds.size());
        for (long id = 0; id < 5; id++)
        {
            assertEquals(List.of(id == 1 ? TransportStatus.OK : TransportStatus.CLOSED), statuses.get(id));
        }
        assertEquals(0, window.outstanding());
        assertEquals(TransportStatus.CLOSED.sentinel(), submit());
    }

    @Test
    void shouldNeverLetALateAnswerCompleteAReusedOperation()
    {
        submit(); // 0
        final TestOperation first = inflight(0);
        clock.update(TIMEOUT);
        assertEquals(1, window.expire(clock.nanoTime()));

        assertEquals(1, submit()); // the pooled operation again, under a new id
        assertSame(first, inflight(1));
        synchronized (window.lock())
        {
            assertNull(window.inflight().take(0), "the late answer of id 0 must find nothing");
        }
        answer(1, TransportStatus.OK);
        assertEquals(List.of(TransportStatus.TIMED_OUT), statuses.get(0L));
        assertEquals(List.of(TransportStatus.OK), statuses.get(1L));
    }

    @Test
    void shouldCountAnonymousSendsByCreditOnly()
    {
        synchronized (window.lock())
        {
            window.creditAnonymousLocked(window.acquireLocked(null));
            window.creditAnonymousLocked(window.acquireLocked(null));
            assertTrue(!window.mayPostLocked());
        }
        assertEquals(2, window.outstanding());
        synchronized (window.lock())
        {
            window.credits().giveBack(2);
        }
        assertEquals(0, window.outstanding());
    }

    /** The fake transport's send: admit, post within credits or queue; the id or the refusal. */
    private long submit()
    {
        synchronized (window.lock())
        {
            final long refused = window.admitLocked(lifecycle);
            if (refused < 0)
            {
                return refused;
            }
            final TestOperation op = window.acquireLocked(recorder);
            if (window.mayPostLocked())
            {
                post(op);
            }
            else
            {
                window.pending().add(op);
            }
            return op.requestId();
        }
    }

    /** What a transport does when its endpoint goes down: take everything out, complete each once. */
    private int failAll()
    {
        final List<TestOperation> taken = new ArrayList<>();
        final int n = window.takeAll(TransportStatus.CLOSED, taken);
        window.completeAll(taken);
        return n;
    }

    private void post(final TestOperation op)
    {
        window.credits().take(op);
        window.inflight().track(op);
        posted.add(op.requestId());
    }

    private void promote()
    {
        synchronized (window.lock())
        {
            while (window.credits().available() && !window.pending().isEmpty())
            {
                post(window.pending().poll());
            }
        }
    }

    private void answer(final long id, final TransportStatus status)
    {
        final TestOperation op;
        synchronized (window.lock())
        {
            op = window.inflight().take(id);
        }
        assertNotNull(op, "operation " + id + " in flight");
        op.status(status);
        window.complete(op);
    }

    private TestOperation inflight(final long id)
    {
        synchronized (window.lock())
        {
            final TestOperation op = window.inflight().take(id);
            window.inflight().track(op);
            return op;
        }
    }

    private static List<Long> sorted(final List<Long> ids)
    {
        final List<Long> copy = new ArrayList<>(ids);
        copy.sort(Long::compare);
        return copy;
    }

    private static final class TestOperation extends Operation
    {
        int cleared;

        @Override
        protected void clear()
        {
            cleared++;
        }
    }
}
