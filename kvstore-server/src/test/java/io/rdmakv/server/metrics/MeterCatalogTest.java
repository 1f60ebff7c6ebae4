package io.rdmakv.server.metrics;

import io.rdmakv.server.counters.ServerCounter;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every counter has HELP and a snake_case name of its own; STATS gauges are exported or name their stand-in. */
class MeterCatalogTest
{
    @Test
    void shouldGiveEveryCounterHelpAndADistinctSnakeCaseName()
    {
        final Set<String> names = new HashSet<>();
        for (final ServerCounter c : ServerCounter.values())
        {
            final String help = MeterCatalog.help(c);
            assertTrue(help != null && !help.isBlank(), "HELP of " + c);
            final String name = MeterCatalog.name(c);
            assertTrue(name.matches("[a-z][a-z0-9_.]*"), name);
            assertTrue(names.add(name), "two counters named " + name);
        }
        assertEquals("rdmakv.server.gets.rpc.not_found", MeterCatalog.name(ServerCounter.GETS_RPC_NOT_FOUND));
        assertEquals("rdmakv.server.connections.data.accepted", MeterCatalog.name(ServerCounter.CONNECTIONS_TOTAL));
        assertEquals("rdmakv.server.control.handshake_timeouts", MeterCatalog.name(ServerCounter.CONTROL_TIMEOUTS));
    }

    @Test
    void shouldExportEachStatsGaugeOnceUnderASnakeCaseName()
    {
        MeterCatalog.GAUGES.forEach((label, export) ->
        {
            assertFalse(MeterCatalog.GAUGES_NOT_EXPORTED.containsKey(label), label);
            assertTrue(export.name().matches("[a-z][a-z0-9_.]*"), export.name());
            assertFalse(export.help().isBlank(), label);
        });
        assertEquals("rdmakv.server.pool.used.bytes", MeterCatalog.GAUGES.get("pool.bytesInUse").name());
    }
}
