package io.rdmakv.server.metrics;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** RDMA port counters come from sysfs files re-read at every scrape; a host without devices exports none. */
class RdmaPortMetersTest
{
    @TempDir
    Path sysfs;

    @Test
    void shouldExportEachPortCounterAndFollowTheFile() throws Exception
    {
        final Path port = sysfs.resolve("rxe0/ports/1");
        Files.createDirectories(port.resolve("counters"));
        Files.createDirectories(port.resolve("hw_counters"));
        Files.writeString(port.resolve("state"), "4: ACTIVE\n");
        Files.writeString(port.resolve("counters/port_rcv_errors"), "3\n");
        Files.writeString(port.resolve("hw_counters/rnr_nak_retry_err"), "7\n");
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();

        assertEquals(2, RdmaPortMeters.bind(registry, sysfs));

        assertEquals(3, count(registry, "counters", "port_rcv_errors"));
        assertEquals(7, count(registry, "hw_counters", "rnr_nak_retry_err"));
        Files.writeString(port.resolve("hw_counters/rnr_nak_retry_err"), "11\n");
        assertEquals(11, count(registry, "hw_counters", "rnr_nak_retry_err"), "read again at every scrape");
        Files.delete(port.resolve("counters/port_rcv_errors"));
        assertTrue(Double.isNaN(count(registry, "counters", "port_rcv_errors")), "a vanished file has no sample");
    }

    @Test
    void shouldExportNothingWithoutRdmaDevices()
    {
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        assertEquals(0, RdmaPortMeters.bind(registry, sysfs.resolve("absent")));
        assertTrue(registry.getMeters().isEmpty());
    }

    private static double count(final SimpleMeterRegistry registry, final String group, final String counter)
    {
        return registry.get("rdmakv.rdma.port.counter").tags("device", "rxe0", "port", "1", "group", group,
            "counter", counter).functionCounter().count();
    }
}
