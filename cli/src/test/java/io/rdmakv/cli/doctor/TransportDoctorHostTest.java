package io.rdmakv.cli.doctor;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/** The real thing on this host: no RDMA here, so doctor must warn and fall back to TCP with exit 0. */
class TransportDoctorHostTest
{
    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void shouldWarnAboutMissingDevInfinibandAndPickTcpOnAHostWithoutRdma()
    {
        assumeFalse(Files.isDirectory(DeviceFiles.DEFAULT_DIR),
            "this host has /dev/infiniband: the no-RDMA expectations do not apply");

        final DoctorReport r = TransportDoctor.system("auto").examine();
        final String text = ReportText.render(r);

        assertTrue(text.contains("[WARN] device files: no /dev/infiniband"), text);
        assertTrue(text.contains("[WARN] auto: auto -> tcp"), text);
        assertEquals(Severity.WARN, r.verdict(), text);
        assertEquals(DoctorReport.EXIT_OK, r.exitCode(), text);
        assertTrue(ReportJson.render(r).startsWith("{\"verdict\":\"WARN\",\"exitCode\":0,"));
    }
}
