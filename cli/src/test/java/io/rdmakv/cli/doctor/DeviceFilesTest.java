package io.rdmakv.cli.doctor;

import io.rdmakv.transport.device.SysfsFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DeviceFilesTest
{
    @TempDir
    Path tmp;

    @Test
    void shouldListDeviceFilesAndFindUverbs()
    {
        SysfsFixture.write(tmp.resolve("dev/infiniband/uverbs0"), "");
        SysfsFixture.write(tmp.resolve("dev/infiniband/rdma_cm"), "");
        SysfsFixture.write(tmp.resolve("dev/infiniband/umad0"), "");
        final DeviceFiles files = DeviceFiles.scan(tmp.resolve("dev/infiniband"));

        assertTrue(files.present());
        assertEquals(List.of("rdma_cm", "umad0", "uverbs0"), files.entries());
        assertEquals(List.of("uverbs0"), files.uverbs());
        assertTrue(files.hasRdmaCm());

        final DeviceFiles none = DeviceFiles.scan(tmp.resolve("dev/nothing"));
        assertFalse(none.present());
        assertTrue(none.entries().isEmpty());
    }
}
