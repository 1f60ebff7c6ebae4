package io.rdmakv.server.cluster.ratis;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/** One request of a key before the group at a time; another key, or the same one once answered, goes out. */
class InFlightTest
{
    @Test
    void shouldSendNoSecondRequestOfAKeyWhileTheFirstIsUnanswered()
    {
        final InFlight<Integer> inFlight = new InFlight<>();
        final AtomicInteger sends = new AtomicInteger();
        final CompletableFuture<String> first = new CompletableFuture<>();
        assertSame(first, inFlight.sendUnlessPending(3, () -> count(sends, first)));
        assertNull(inFlight.sendUnlessPending(3, () -> count(sends, new CompletableFuture<>())),
            "node 3's first request is unanswered: nothing sent");
        assertSame(first, inFlight.pending(3));
        assertEquals(1, sends.get());

        final CompletableFuture<String> other = new CompletableFuture<>();
        assertSame(other, inFlight.sendUnlessPending(2, () -> count(sends, other)), "another key goes out");
        assertEquals(2, sends.get());

        first.complete("committed");
        assertNull(inFlight.pending(3));
        final CompletableFuture<String> again = new CompletableFuture<>();
        assertSame(again, inFlight.sendUnlessPending(3, () -> count(sends, again)), "answered: the next one goes");
        assertEquals(3, sends.get());

        again.completeExceptionally(new IllegalStateException("no leader"));
        final CompletableFuture<String> retry = new CompletableFuture<>();
        assertSame(retry, inFlight.sendUnlessPending(3, () -> count(sends, retry)), "a failed one is answered too");
        assertEquals(4, sends.get());
    }

    private static <T> CompletableFuture<T> count(final AtomicInteger sends, final CompletableFuture<T> f)
    {
        sends.incrementAndGet();
        return f;
    }
}
