package io.rdmakv.protocol;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SharedSecretTest
{
    @TempDir
    Path tmp;

    @Test
    void shouldReadTheFirstLineOfAFileOnlyItsOwnerReadsWithoutAWarning() throws Exception
    {
        final Path file = Files.writeString(tmp.resolve("secret"), "  s3cret \nnext\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        final List<String> warnings = new ArrayList<>();
        assertEquals("s3cret", SharedSecret.read(file, warnings::add));
        assertEquals(List.of(), warnings);
    }

    @Test
    void shouldWarnWhenGroupOrOthersMayReadTheFile() throws Exception
    {
        final Path file = Files.writeString(tmp.resolve("secret"), "s3cret\n");
        final List<String> warnings = new ArrayList<>();
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));
        assertEquals("s3cret", SharedSecret.read(file, warnings::add));
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw----r--"));
        assertEquals("s3cret", SharedSecret.read(file, warnings::add));
        assertEquals(2, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).contains("readable by group (rw-r-----)") && warnings.get(0).contains("chmod 600"),
            warnings.get(0));
        assertTrue(warnings.get(1).contains("readable by others"), warnings.get(1));
    }

    @Test
    void shouldPreferTheFileToTheEnvironmentAndRefuseAnEmptyOrMissingFile() throws Exception
    {
        final Path file = Files.writeString(tmp.resolve("secret"), "from-file\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        final Map<String, String> env = Map.of(SharedSecret.ENV, "from-env");
        assertEquals("from-file", SharedSecret.resolve(file, env::get, w -> { }));
        assertEquals("from-env", SharedSecret.resolve(null, env::get, w -> { }));
        assertNull(SharedSecret.resolve(null, name -> null, w -> { }));
        assertNull(SharedSecret.resolve(null, name -> "", w -> { }));
        Files.writeString(file, "\n");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> SharedSecret.read(file, w -> { })).getMessage()
            .contains("is empty"));
        final Path absent = tmp.resolve("absent");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> SharedSecret.read(absent, w -> { }))
            .getMessage().contains(absent.toString()));
    }
}
