package io.rdmakv.server.cli;

import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.load.DataSetLoader;
import io.rdmakv.server.load.SyntheticDataSet;
import io.rdmakv.server.pool.PoolSizing;
import io.rdmakv.server.store.StoreException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code rdmakv load}: write a synthetic data set straight into a node's RocksDB directory, with no server running,
 * to measure start-up with a given amount of data:
 * <pre>
 *   rdmakv load --data-dir /var/lib/rdmakv --keys 1000000 --value-size 1024
 *   rdmakv server --data-dir /var/lib/rdmakv --pool-size 1228MiB      (logs "startup: serving one-sided GETs ...")
 * </pre>
 * It ends by naming the pool size that holds the whole set ({@link PoolSizing#poolSizeFor}, default settings).
 * Keys are those of {@code rdmakv bench} with the same {@code --keys} and {@code --key-size}. Exit codes: 0 loaded,
 * 1 the store could not be opened or written (e.g. a server is using it), 2 bad options.
 */
@Command(name = "load", mixinStandardHelpOptions = true, sortOptions = false,
    description = {
        "Write a synthetic data set into a node's data directory (no server may be running on it).",
        "Key i is 'k' and i zero-padded to --key-size (rdmakv bench's keys); value i is --value-size bytes derived " +
            "from i. Batched with the WAL off and flushed at the end: durable when the command returns.",
        "",
        "Example (about 1 GiB):  rdmakv load --data-dir ./data --keys 1000000 --value-size 1024"})
public final class LoadCommand implements Callable<Integer>
{
    @Option(names = "--data-dir", required = true, paramLabel = "DIR", description = "the node's RocksDB directory")
    Path dataDir;

    @Option(names = "--keys", defaultValue = "1000000", description = "Key count. Default: ${DEFAULT-VALUE}.")
    long keys;

    @Option(names = "--key-size", defaultValue = "16", description = "Key bytes. Default: ${DEFAULT-VALUE}.")
    int keySize;

    @Option(names = "--value-size", defaultValue = "1024", description = "Value bytes. Default: ${DEFAULT-VALUE}.")
    int valueSize;

    private final PrintStream out;
    private final PrintStream err;

    public LoadCommand()
    {
        this(System.out, System.err);
    }

    LoadCommand(final PrintStream out, final PrintStream err)
    {
        this.out = out;
        this.err = err;
    }

    @Override
    public Integer call()
    {
        final SyntheticDataSet set;
        try
        {
            set = new SyntheticDataSet(keys, keySize, valueSize);
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("rdmakv load: " + ex.getMessage());
            return 2;
        }
        out.println("loading " + set + " = " + mib(set.totalBytes()) + " MiB into " + dataDir.toAbsolutePath());
        try
        {
            final DataSetLoader.Result r = DataSetLoader.load(dataDir, set,
                n -> err.printf("  %,d keys%n", n));
            out.printf("loaded %d keys, %s MiB of keys and values, in %d ms (flushed to SST files)%n",
                r.keys(), mib(r.bytes()), r.millis());
            final ServerConfig defaults = ServerConfig.defaults();
            final long pool = PoolSizing.poolSizeFor(set.keyCount(), set.keySize(), set.valueSize(),
                defaults.indexAvgEntryBytes(), (int)defaults.poolPartitionSize());
            out.printf("a node serves all of it one-sided from a pool of at least %dMiB (default settings): " +
                "rdmakv server --data-dir %s --pool-size %dMiB%n", pool >> 20, dataDir, pool >> 20);
            return 0;
        }
        catch (final StoreException ex)
        {
            err.println("rdmakv load: " + ex.getMessage());
            return 1;
        }
    }

    private static String mib(final long bytes)
    {
        return String.format("%.1f", bytes / (double)(1 << 20));
    }

    /** Run with picocli's parsing and error reporting; returns the exit code. */
    public static int run(final String... args)
    {
        return new CommandLine(new LoadCommand()).execute(args);
    }
}
