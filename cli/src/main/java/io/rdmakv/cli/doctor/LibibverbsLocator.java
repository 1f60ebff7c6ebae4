package io.rdmakv.cli.doctor;

import io.rdmakv.transport.device.InfinibandSysfs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Finds libibverbs as the dynamic linker would: first {@code ldconfig -p}, then the usual library directories;
 * asks {@code dpkg-query} for the package versions when dpkg exists. Never loads the library.
 */
public final class LibibverbsLocator
{
    /** Where Debian, Ubuntu, Fedora and friends put the library when {@code ldconfig} is not there to ask. */
    public static final List<Path> DEFAULT_DIRS = List.of(
        Path.of("/lib/x86_64-linux-gnu"), Path.of("/usr/lib/x86_64-linux-gnu"),
        Path.of("/lib/aarch64-linux-gnu"), Path.of("/usr/lib/aarch64-linux-gnu"),
        Path.of("/usr/lib64"), Path.of("/lib64"), Path.of("/usr/lib"), Path.of("/lib"));

    /** The packages whose versions are reported: the library and the drivers it needs to see any device. */
    public static final List<String> PACKAGES = List.of("libibverbs1", "ibverbs-providers");

    private final List<Path> searchDirs;
    private final CommandRunner runner;

    public LibibverbsLocator(final List<Path> searchDirs, final CommandRunner runner)
    {
        this.searchDirs = List.copyOf(searchDirs);
        this.runner = runner;
    }

    /** The locator for this machine. */
    public static LibibverbsLocator system()
    {
        return new LibibverbsLocator(DEFAULT_DIRS, CommandRunner.system());
    }

    public LibibverbsInfo locate()
    {
        final Path link = fromLdconfig().or(this::fromSearchDirs).orElse(null);
        Path real = null;
        final List<String> providers = new ArrayList<>();
        if (link != null)
        {
            try
            {
                real = link.toRealPath();
            }
            catch (final IOException | SecurityException ex)
            {
                real = null;
            }
            final Path dir = link.toAbsolutePath().getParent();
            if (dir != null)
            {
                for (final Path p : InfinibandSysfs.children(dir.resolve("libibverbs")))
                {
                    providerName(p.getFileName().toString()).ifPresent(providers::add);
                }
            }
        }
        return new LibibverbsInfo(link, real, providers, packageVersions());
    }

    /** {@code libmlx5-rdmav34.so} gives {@code mlx5}. */
    static Optional<String> providerName(final String fileName)
    {
        final int dash = fileName.indexOf("-rdmav");
        if (!fileName.startsWith("lib") || dash <= 3 || !fileName.endsWith(".so"))
        {
            return Optional.empty();
        }
        return Optional.of(fileName.substring(3, dash));
    }

    private Optional<Path> fromLdconfig()
    {
        // "\tlibibverbs.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libibverbs.so.1"
        final Optional<String> out = runner.run(List.of("ldconfig", "-p"))
            .or(() -> runner.run(List.of("/sbin/ldconfig", "-p")));
        if (out.isEmpty())
        {
            return Optional.empty();
        }
        for (final String line : out.get().split("\n"))
        {
            final String t = line.trim();
            final int arrow = t.indexOf("=>");
            if (t.startsWith(LibibverbsInfo.SONAME + " ") && arrow > 0)
            {
                final Path p = Path.of(t.substring(arrow + 2).trim());
                if (Files.exists(p))
                {
                    return Optional.of(p);
                }
            }
        }
        return Optional.empty();
    }

    private Optional<Path> fromSearchDirs()
    {
        for (final Path dir : searchDirs)
        {
            final Path p = dir.resolve(LibibverbsInfo.SONAME);
            if (Files.exists(p))
            {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    private Map<String, String> packageVersions()
    {
        final List<String> cmd = new ArrayList<>(List.of("dpkg-query", "-W", "--showformat=${Package} ${Version}\\n"));
        cmd.addAll(PACKAGES);
        final Map<String, String> versions = new LinkedHashMap<>();
        runner.run(cmd).ifPresent(out ->
        {
            for (final String line : out.split("\n"))
            {
                final String[] parts = line.trim().split("\\s+");
                // A known but not installed package prints an empty version: skip it.
                if (parts.length == 2 && PACKAGES.contains(stripArch(parts[0])))
                {
                    versions.put(stripArch(parts[0]), parts[1]);
                }
            }
        });
        return versions;
    }

    private static String stripArch(final String pkg)
    {
        final int colon = pkg.indexOf(':');
        return colon > 0 ? pkg.substring(0, colon) : pkg;
    }
}
