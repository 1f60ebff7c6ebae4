package io.rdmakv.pool.alloc;

import org.agrona.concurrent.NanoClock;

/** A clock the test moves by hand. */
final class ManualNanoClock implements NanoClock
{
    private long now = 1_000_000_000L;

    @Override
    public long nanoTime()
    {
        return now;
    }

    void advance(final long nanos)
    {
        now += nanos;
    }
}
