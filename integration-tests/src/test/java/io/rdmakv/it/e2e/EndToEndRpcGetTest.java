package io.rdmakv.it.e2e;

import io.rdmakv.client.ClientCounter;
import io.rdmakv.client.GetMode;
import io.rdmakv.client.KvStats;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The end-to-end suite with GETs served by two-sided requests. */
class EndToEndRpcGetTest extends AbstractEndToEndTest
{
    @Override
    protected GetMode getMode()
    {
        return GetMode.RPC;
    }

    @Test
    @Timeout(60)
    void shouldServeGetsByRequestsOnly()
    {
        final byte[] key = key("rpc");
        client().put(key, bytes("ask the server"));
        final KvStats before = client().stats();
        for (int i = 0; i < 20; i++)
        {
            assertArrayEquals(bytes("ask the server"), client().get(key));
        }
        final KvStats after = client().stats();
        assertEquals(0, after.client(ClientCounter.GET_ONE_SIDED_HITS), after.format());
        assertTrue(after.client(ClientCounter.RPCS) - before.client(ClientCounter.RPCS) >= 20, after.format());
    }
}
