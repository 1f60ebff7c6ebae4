package io.rdmakv.transport.progress;

import io.rdmakv.transport.HandOffConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The polled workers' idle strategy: bounded parks, and a signal that is never lost. */
class SignalledIdleStrategyTest
{
    @Test
    @Timeout(30)
    void shouldNeverLoseASignalAcrossManyHandOffs() throws Exception
    {
        // A producer hands over work one item at a time and waits for it to be taken; a lost wake-up would cost a
        // whole park, but the hand-off must also never stall: 2,000 hand-offs with bounded parks finish quickly.
        final SignalledIdleStrategy idle = new SignalledIdleStrategy();
        final HandOffConsumer consumer = new HandOffConsumer(idle);
        for (int i = 1; i <= 2_000; i++)
        {
            consumer.offer(i);
            idle.signal();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (consumer.taken() < i)
            {
                assertTrue(System.nanoTime() < deadline, "hand-off " + i + " was never taken");
                Thread.onSpinWait();
            }
        }
        consumer.stop();
        idle.signal();
        assertTrue(consumer.join(5_000));
        assertEquals(2_000, consumer.taken());
    }

    @Test
    @Timeout(10)
    void shouldWakeAParkedIdlerOnSignal() throws Exception
    {
        final SignalledIdleStrategy idle = new SignalledIdleStrategy();
        final CountDownLatch parkedLong = new CountDownLatch(1);
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicLong idles = new AtomicLong();
        final Thread idler = new Thread(() ->
        {
            while (!stop.get())
            {
                idle.idle(0);
                if (idles.incrementAndGet() == 200)
                {
                    parkedLong.countDown(); // past the spins and yields: parking now
                }
            }
        });
        idler.start();
        assertTrue(parkedLong.await(5, TimeUnit.SECONDS));
        stop.set(true);
        idle.signal();
        idler.join(TimeUnit.MILLISECONDS.toMillis(1_000));
        assertTrue(!idler.isAlive(), "a signal (or at worst one bounded park) ends the idle");
    }
}
