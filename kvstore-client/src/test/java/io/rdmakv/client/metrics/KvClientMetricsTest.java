package io.rdmakv.client.metrics;

import io.rdmakv.client.ClientCounter;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The client's meter names follow Prometheus' practice: snake case, after the counter's label. */
class KvClientMetricsTest
{
    @Test
    void shouldNameEveryCounterInSnakeCaseAfterItsLabel()
    {
        assertEquals("rdmakv.client.get.one_sided.hits", KvClientMetrics.meterName(ClientCounter.GET_ONE_SIDED_HITS));
        for (final ClientCounter c : ClientCounter.values())
        {
            final String name = KvClientMetrics.meterName(c);
            assertTrue(name.matches("rdmakv\\.client\\.[a-z0-9_.]+"), name);
        }
    }
}
