package io.rdmakv.it.e2e;

import io.rdmakv.client.ClientCounter;
import io.rdmakv.client.GetMode;
import io.rdmakv.client.KvStats;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
}
