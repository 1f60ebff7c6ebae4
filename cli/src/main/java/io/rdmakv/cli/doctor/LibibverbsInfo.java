package io.rdmakv.cli.doctor;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * What is installed of libibverbs: the library the dynamic linker would load, the file it really is (its name
 * carries the rdma-core version, e.g. {@code libibverbs.so.1.14.44.0}), the provider drivers next to it, and the
 * Debian package versions.
 *
 * @param linkPath        where {@code libibverbs.so.1} resolves, or {@code null} when not found.
 * @param realPath        the file behind the symlinks, or {@code null}.
 * @param providers       provider drivers found in {@code libibverbs/} beside the library, e.g. {@code mlx5}, {@code rxe}.
 * @param packageVersions package name to version ({@code libibverbs1}, {@code ibverbs-providers}) when dpkg knows them.
 */
public record LibibverbsInfo(Path linkPath, Path realPath, List<String> providers, Map<String, String> packageVersions)
{
    /** The name the verbs binding loads. */
    public static final String SONAME = "libibverbs.so.1";

    public LibibverbsInfo
    {
        providers = List.copyOf(providers);
        packageVersions = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(packageVersions));
    }

    public boolean found()
    {
        return linkPath != null;
    }

    /** The version from the real file name ({@code 1.14.44.0}), or {@code null}. */
    public String fileVersion()
    {
        if (realPath == null)
        {
            return null;
        }
        final String name = realPath.getFileName().toString();
        // The soname is libibverbs.so.1; the file is libibverbs.so.<version>, e.g. libibverbs.so.1.14.44.0.
        final String prefix = "libibverbs.so.";
        return name.startsWith(prefix) && name.length() > prefix.length() ? name.substring(prefix.length()) : null;
    }
}
