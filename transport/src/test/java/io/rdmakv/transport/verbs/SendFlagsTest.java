package io.rdmakv.transport.verbs;

import org.junit.jupiter.api.Test;

import static io.rdmakv.transport.verbs.ffi.VerbsLayout.SEND_INLINE;
import static io.rdmakv.transport.verbs.ffi.VerbsLayout.SEND_SIGNALED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The decision of each work request's flags, without a device, and the counts it keeps: selective signaling (one
 * signaled send per interval, plus those someone waits for; reads always, restarting the run), inline up to the QP's
 * limit, and doorbells with the work requests behind them.
 */
class SendFlagsTest
{
    private static final int INTERVAL = 4;
    private static final int MAX_INLINE = 64;

    private final PostCounts counts = new PostCounts();
    private final SendFlags flags = new SendFlags(INTERVAL, MAX_INLINE, counts);

    @Test
    void shouldSignalOneSendInEachIntervalWhenNobodyWaits()
    {
        final int sends = 3 * INTERVAL + 2;
        int signaled = 0;
        for (int i = 1; i <= sends; i++)
        {
            final boolean isSignaled = (flags.send(16, false) & SEND_SIGNALED) != 0;
            assertEquals(i % INTERVAL == 0, isSignaled, "send " + i);
            signaled += isSignaled ? 1 : 0;
        }
        assertEquals(3, signaled);
        assertEquals(sends, counts.sends);
        assertEquals(3, counts.signaledSends);
        assertEquals(3.0 / sends, counts.snapshot().signaledShare(), 1e-12);
    }

    @Test
    void shouldSignalAWaitedForSendAndStartTheRunOver()
    {
        flags.send(16, false);
        flags.send(16, false);
        assertEquals(SEND_SIGNALED, flags.send(16, true) & SEND_SIGNALED, "a handler waits for it");
        for (int i = 1; i < INTERVAL; i++)
        {
            assertEquals(0, flags.send(16, false) & SEND_SIGNALED, "the run restarted at the waited-for send: " + i);
        }
        assertEquals(SEND_SIGNALED, flags.send(16, false) & SEND_SIGNALED);
        assertEquals(2, counts.signaledSends);
    }

    @Test
    void shouldSignalEveryReadAndStartTheSendRunOver()
    {
        for (int i = 1; i < INTERVAL; i++)
        {
            flags.send(16, false);
        }
        assertEquals(SEND_SIGNALED, flags.read());
        assertEquals(SEND_SIGNALED, flags.read());
        assertEquals(0, flags.send(16, false) & SEND_SIGNALED, "one send after the reads: a new run");
        assertEquals(2, counts.reads);
        assertEquals(INTERVAL, counts.sends);
        assertEquals(0, counts.signaledSends, "reads are not sends");
    }

    @Test
    void shouldSendInlineUpToTheQueuePairsLimit()
    {
        assertEquals(SEND_INLINE, flags.send(0, false) & SEND_INLINE, "a credit message");
        assertEquals(SEND_INLINE, flags.send(MAX_INLINE, false) & SEND_INLINE);
        assertEquals(0, flags.send(MAX_INLINE + 1, false) & SEND_INLINE);
        assertEquals(0, flags.send(4096, true) & SEND_INLINE);
        assertEquals(4, counts.sends);
        assertEquals(2, counts.inlineSends);
        assertEquals(0.5, counts.snapshot().inlineShare(), 1e-12);
    }

    @Test
    void shouldNeverSendInlineWhenTheQueuePairTakesNoInlineData()
    {
        final PostCounts none = new PostCounts();
        final SendFlags noInline = new SendFlags(INTERVAL, 0, none);
        assertEquals(SEND_INLINE, noInline.send(0, false) & SEND_INLINE, "an empty send needs no data at all");
        assertEquals(0, noInline.send(1, false) & SEND_INLINE);
        assertEquals(1, none.inlineSends);
    }

    @Test
    void shouldCountDoorbellsWithTheWorkRequestsBehindThem()
    {
        for (int i = 0; i < 3; i++)
        {
            flags.read();
        }
        flags.sendDoorbell();
        flags.send(16, false);
        flags.sendDoorbell();
        flags.recvDoorbell(5);
        flags.recvDoorbell(3);
        final VerbsCounters c = counts.snapshot();
        assertEquals(2, c.sendDoorbells());
        assertEquals(2.0, c.postsPerDoorbell(), 1e-12, "3 reads in one doorbell, 1 send in another");
        assertEquals(8, c.recvs());
        assertEquals(4.0, c.recvsPerDoorbell(), 1e-12);
    }

    @Test
    void shouldRefuseAnIntervalBelowOne()
    {
        assertThrows(IllegalArgumentException.class, () -> new SendFlags(0, MAX_INLINE, new PostCounts()));
    }
}
