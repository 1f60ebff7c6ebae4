package io.rdmakv.cli.doctor;

import io.rdmakv.transport.device.RdmaDevice;
import io.rdmakv.transport.device.RdmaPort;
import io.rdmakv.transport.device.GidEntry;
import io.rdmakv.transport.device.CodedState;
import io.rdmakv.transport.device.PortAttributes;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ReportRenderingTest
{
    private static final DoctorReport REPORT = new DoctorReport(List.of(
        new ReportSection("device files", List.of(
            Check.warn("device files", "no /dev/infiniband: verbs cannot open any device", "modprobe ib_uverbs"))),
        new ReportSection("memory pool", List.of(
            Check.ok("memlock", "64.0 MiB fits").withDetails(List.of("soft=unlimited")),
            Check.fail("pin", "needs \"REQUIRED\"\tpinning\n", "ulimit -l unlimited")))),
        List.of(new RdmaDevice("rxe0", new CodedState(1, "CA"), "0.0.0", null, null, List.of(new RdmaPort(1,
            new CodedState(4, "ACTIVE"), new CodedState(5, "LinkUp"), "10 Gb/sec (1X QDR)", "Ethernet", 0,
            List.of(new GidEntry(1, "fe80:0000:0000:0000:5054:00ff:fe12:3456", "RoCE v2", "eth0")),
            Map.of("port_rcv_errors", 0L), Map.of("rcvd_rnr_err", 3L), List.of("counters/symbol_error"))))),
        Map.of("rxe0/1", new PortAttributes("ACTIVE", 1024, 4096, "1X", "2.5 Gbps", "Ethernet", 0)));

    @Test
    void shouldRenderSectionsChecksFixesAndTheVerdictAsText()
    {
        assertEquals(
            "rdmakv doctor\n" +
            "\n== device files ==\n" +
            "[WARN] device files: no /dev/infiniband: verbs cannot open any device\n" +
            "       fix: modprobe ib_uverbs\n" +
            "\n== memory pool ==\n" +
            "[OK  ] memlock: 64.0 MiB fits\n" +
            "       soft=unlimited\n" +
            "[FAIL] pin: needs \"REQUIRED\"\tpinning\n\n" +
            "       fix: ulimit -l unlimited\n" +
            "\nverdict: FAIL (exit 2): 1 warning(s), 1 failure(s)\n" +
            "  FAIL memory pool: pin: needs \"REQUIRED\"\tpinning\n\n",
            ReportText.render(REPORT));
    }

    @Test
    void shouldRenderEscapedJsonWithDevicesAndPortAttributes()
    {
        assertEquals("{\"verdict\":\"FAIL\",\"exitCode\":2,\"sections\":[" +
            "{\"title\":\"device files\",\"status\":\"WARN\",\"checks\":[{\"name\":\"device files\",\"status\":\"WARN\"," +
            "\"message\":\"no /dev/infiniband: verbs cannot open any device\",\"details\":[]," +
            "\"fix\":\"modprobe ib_uverbs\"}]}," +
            "{\"title\":\"memory pool\",\"status\":\"FAIL\",\"checks\":[{\"name\":\"memlock\",\"status\":\"OK\"," +
            "\"message\":\"64.0 MiB fits\",\"details\":[\"soft=unlimited\"],\"fix\":null}," +
            "{\"name\":\"pin\",\"status\":\"FAIL\",\"message\":\"needs \\\"REQUIRED\\\"\\tpinning\\n\",\"details\":[]," +
            "\"fix\":\"ulimit -l unlimited\"}]}]," +
            "\"devices\":[{\"name\":\"rxe0\",\"nodeType\":\"CA\",\"firmware\":\"0.0.0\",\"nodeGuid\":null," +
            "\"boardId\":null,\"ports\":[{\"port\":1,\"state\":\"ACTIVE\",\"stateCode\":4,\"physState\":\"LinkUp\"," +
            "\"physStateCode\":5,\"rate\":\"10 Gb/sec (1X QDR)\",\"linkLayer\":\"Ethernet\",\"lid\":0," +
            "\"activeMtu\":1024,\"maxMtu\":4096,\"portQuery\":{\"state\":\"ACTIVE\",\"activeMtu\":1024," +
            "\"maxMtu\":4096,\"width\":\"1X\",\"speed\":\"2.5 Gbps\",\"linkLayer\":\"Ethernet\",\"lid\":0}," +
            "\"gids\":[{\"index\":1," +
            "\"gid\":\"fe80:0000:0000:0000:5054:00ff:fe12:3456\",\"type\":\"RoCE v2\",\"netdev\":\"eth0\"}]," +
            "\"counters\":{\"port_rcv_errors\":0},\"hwCounters\":{\"rcvd_rnr_err\":3}," +
            "\"unreadable\":[\"counters/symbol_error\"]}]}]}",
            ReportJson.render(REPORT));
    }
}
