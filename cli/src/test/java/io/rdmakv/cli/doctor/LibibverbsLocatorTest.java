package io.rdmakv.cli.doctor;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LibibverbsLocatorTest
{
    @TempDir
    Path tmp;

    private Path installLibrary(final Path dir) throws Exception
    {
        Files.createDirectories(dir.resolve("libibverbs"));
        final Path real = Files.writeString(dir.resolve("libibverbs.so.1.14.50.0"), "ELF");
        Files.createSymbolicLink(dir.resolve("libibverbs.so.1"), real.getFileName());
        Files.writeString(dir.resolve("libibverbs/libmlx5-rdmav34.so"), "ELF");
        Files.writeString(dir.resolve("libibverbs/librxe-rdmav34.so"), "ELF");
        Files.writeString(dir.resolve("libibverbs/README"), "not a driver");
        return dir.resolve("libibverbs.so.1");
    }

    @Test
    void shouldResolveTheLibraryThroughLdconfigAndReadPackageVersions() throws Exception
    {
        final Path link = installLibrary(tmp.resolve("lib"));
        final List<List<String>> commands = new ArrayList<>();
        final CommandRunner runner = command ->
        {
            commands.add(command);
            if (command.get(0).equals("ldconfig"))
            {
                return Optional.of("1234 libs found in cache `/etc/ld.so.cache'\n" +
                    "\tlibibverbs.so.1 (libc6,x86-64) => " + link + "\n" +
                    "\tlibibverbs.so (libc6,x86-64) => " + link.resolveSibling("libibverbs.so") + "\n");
            }
            return Optional.of("ibverbs-providers 50.0-1\nlibibverbs1 50.0-1\n");
        };
        final LibibverbsInfo info = new LibibverbsLocator(List.of(), runner).locate();

        assertTrue(info.found());
        assertEquals(link, info.linkPath());
        assertEquals("libibverbs.so.1.14.50.0", info.realPath().getFileName().toString());
        assertEquals("1.14.50.0", info.fileVersion());
        assertEquals(List.of("mlx5", "rxe"), info.providers());
        assertEquals(Map.of("libibverbs1", "50.0-1", "ibverbs-providers", "50.0-1"), info.packageVersions());
        assertEquals(List.of("dpkg-query", "-W", "--showformat=${Package} ${Version}\\n", "libibverbs1",
            "ibverbs-providers"), commands.get(commands.size() - 1));
    }

    @Test
    void shouldFallBackToTheSearchDirectoriesWithoutLdconfigOrDpkg() throws Exception
    {
        final Path link = installLibrary(tmp.resolve("usr/lib64"));
        final LibibverbsInfo info = new LibibverbsLocator(List.of(tmp.resolve("lib"), tmp.resolve("usr/lib64")),
            command -> Optional.empty()).locate();

        assertEquals(link, info.linkPath());
        assertEquals("1.14.50.0", info.fileVersion());
        assertTrue(info.packageVersions().isEmpty());
    }

    @Test
    void shouldReportNothingFoundAndSkipPackagesDpkgDoesNotKnow()
    {
        final LibibverbsInfo info = new LibibverbsLocator(List.of(tmp), command -> Optional.of(
            command.get(0).equals("ldconfig") ? "\tlibc.so.6 (libc6,x86-64) => /lib/libc.so.6\n" :
                "libibverbs1 \n")).locate();

        assertFalse(info.found());
        assertNull(info.realPath());
        assertNull(info.fileVersion());
        assertTrue(info.providers().isEmpty());
        assertTrue(info.packageVersions().isEmpty());
    }

    @Test
    void shouldNameProviderDrivers()
    {
        assertEquals(Optional.of("bnxt_re"), LibibverbsLocator.providerName("libbnxt_re-rdmav34.so"));
        assertEquals(Optional.empty(), LibibverbsLocator.providerName("libibverbs.so.1"));
        assertEquals(Optional.empty(), LibibverbsLocator.providerName("lib-rdmav34.so"));
    }
}
