package io.rdmakv.it.e2e;

import io.rdmakv.client.ClientCounter;
import io.rdmakv.client.GetMode;
import io.rdmakv.client.KvStats;
import io.rdmakv.client.internal.ExpiryCheck;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.time.Instant;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The end-to-end suite with GETs forced one-sided over TCP: the client runs the full one-sided protocol (buckets,
 * slot, extent, verification) against the server's pool through the TCP transport's emulated reads.
 */
class EndToEndOneSidedGetTest extends AbstractEndToEndTest
{
    @Override
    protected GetMode getMode()
    {
        return GetMode.ONE_SIDED;
    }

    @Test
    @Timeout(60)
    void shouldServeGetsOneSidedWithoutAskingTheServer()
    {
        final byte[] key = key("one-sided");
        client().put(key, bytes("read me from the pool"));
        final KvStats before = client().stats();
        for (int i = 0; i < 20; i++)
        {
            assertArrayEquals(bytes("read me from the pool"), client().get(key));
        }
        final KvStats after = client().stats();
        assertEquals(20, after.client(ClientCounter.GET_ONE_SIDED_HITS) - before.client(ClientCounter.GET_ONE_SIDED_HITS),
            after.format());
        assertTrue(after.client(ClientCounter.RPCS) - before.client(ClientCounter.RPCS) <= 1,
            "one-sided GETs send no requests (at most the STATS itself counts): " + after.format());
    }

    /**
     * A value with an expiry is read one-sided while it is surely live on the node's clock (the reader's clock and the
     * drift bound, ExpiryCheck), by RPC in the band around its expiry, absent one-sided once surely expired; on the
     * machine's real clock a GET begun at or after the expiry never returns it.
     */
    @Test
    @Timeout(60)
    void shouldServeAKeyWithATtlOneSidedAndNeverReturnItAfterItsExpiry()
    {
        final byte[] key = key("ttl");
        final Instant expiry = Instant.now().plus(Duration.ofHours(1));
        final long version = client().put(key, bytes("lives an hour"), expiry);
        final long life = expiry.toEpochMilli() - (version >>> 20);
        try
        {
            final KvStats before = client().stats();
            for (int i = 0; i < 20; i++)
            {
                assertArrayEquals(bytes("lives an hour"), client().get(key));
            }
            final KvStats live = client().stats();
            assertEquals(20, delta(before, live, ClientCounter.GET_ONE_SIDED_HITS), live.format());
            assertEquals(20, delta(before, live, ClientCounter.EXPIRY_ONE_SIDED_LIVE), live.format());
            assertTrue(delta(before, live, ClientCounter.RPCS) <= 1, "no GET went to the node: " + live.format());

            // The reader's clock at the expiry: within the band, so the node's clock decides (it is an hour before).
            ExpiryCheck.useClock(expiry::toEpochMilli);
            assertArrayEquals(bytes("lives an hour"), client().get(key));
            final KvStats band = client().stats();
            assertEquals(1, delta(live, band, ClientCounter.EXPIRY_UNCERTAIN), band.format());
            assertEquals(0, delta(live, band, ClientCounter.GET_ONE_SIDED_HITS), band.format());
            assertTrue(delta(live, band, ClientCounter.RPCS) >= 1, "the GET went to the node: " + band.format());

            // Past the band: surely expired, absent without asking.
            ExpiryCheck.useClock(() -> expiry.toEpochMilli() + life / 5);
            assertNull(client().get(key));
            final KvStats expired = client().stats();
            assertEquals(1, delta(band, expired, ClientCounter.EXPIRY_ONE_SIDED_EXPIRED), expired.format());
            assertTrue(delta(band, expired, ClientCounter.RPCS) <= 1, "answered one-sided: " + expired.format());
        }
        finally
        {
            ExpiryCheck.useClock(null);
        }

        // Real clocks (the node runs on this machine): every GET begun at or after the expiry finds the key absent.
        final byte[] soon = key("ttl-soon");
        final long soonExpiry = System.currentTimeMillis() + 200;
        client().put(soon, bytes("lives 200 ms"), Instant.ofEpochMilli(soonExpiry));
        int after = 0;
        while (after < 20)
        {
            final long begun = System.currentTimeMillis();
            final byte[] value = client().get(soon);
            if (begun >= soonExpiry)
            {
                assertNull(value, "returned " + (begun - soonExpiry) + " ms after its expiry");
                after++;
            }
            else if (value != null)
            {
                assertArrayEquals(bytes("lives 200 ms"), value);
            }
        }
        assertNull(client().getWithVersion(soon));
    }

    private static long delta(final KvStats before, final KvStats after, final ClientCounter counter)
    {
        return after.client(counter) - before.client(counter);
    }
}
