package io.rdmakv.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rdmakv.client.HostPort;
import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvError;
import io.rdmakv.client.KvException;
import io.rdmakv.client.control.ControlPlaneClient;
import io.rdmakv.protocol.wire.Admin;
import io.rdmakv.protocol.wire.AdminReply;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.fail;

/** What the tests of {@code rdmakv cluster local} share: free ports for its nodes, a client, waiting for a state. */
final class LocalClusters
{
    /** Bounds each wait for the cluster to reach a state (seconds); a loaded host takes minutes to start JVMs. */
    static final long WAIT_SECONDS = 240;

    private LocalClusters()
    {
    }

    /** Wait until the committed state as {@code seed} answers it (ADMIN "json status") passes {@code test}. */
    static void awaitStatus(final String seed, final Predicate<JsonNode> test, final String what) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        String last = "";
        try (ControlPlaneClient control = new ControlPlaneClient())
        {
            while (System.nanoTime() < deadline)
            {
                try
                {
                    final AdminReply reply = control.admin(HostPort.parse(seed), new Admin(new byte[0], "json status"),
                        Duration.ofSeconds(10));
                    last = reply.text();
                    if (reply.ok() && test.test(new ObjectMapper().readTree(reply.text())))
                    {
                        return;
                    }
                }
                catch (final KvException ex)
                {
                    last = ex.toString(); // the node busy electing or applying: ask again
                }
                Thread.sleep(200);
            }
        }
        fail(what + " never happened: " + last);
    }

    /** A test body that may throw anything. */
    @FunctionalInterface
    interface Body
    {
        void run() throws Exception;
    }

    /**
     * Run {@code body}; when it fails, copy every node log under {@code dataDir} (the test's temporary directory,
     * deleted with it) to {@code target/failed-runs/<name>/} and name that place in the failure, so a run that failed
     * on a loaded CI machine can be read afterwards.
     */
    static void keepingLogsOnFailure(final Path dataDir, final String name, final Body body) throws Exception
    {
        try
        {
            body.run();
        }
        catch (final Exception | AssertionError failure)
        {
            final Path kept = Path.of("target", "failed-runs", name + "-" + System.currentTimeMillis());
            try (Stream<Path> files = Files.exists(dataDir) ? Files.walk(dataDir) : Stream.empty())
            {
                for (final Path log : files.filter(LocalClusters::isNodeLog).toList())
                {
                    final Path to = kept.resolve(dataDir.relativize(log).toString().replace('/', '_'));
                    Files.createDirectories(kept);
                    Files.copy(log, to);
                }
                failure.addSuppressed(new AssertionError("node logs kept in " + kept.toAbsolutePath()));
            }
            catch (final IOException ex)
            {
                failure.addSuppressed(ex);
            }
            throw failure;
        }
    }

    /** A node's log or a thread dump; not RocksDB's write-ahead logs ({@code 000008.log}). */
    private static boolean isNodeLog(final Path file)
    {
        final String name = file.getFileName().toString();
        return name.endsWith(".log") && !name.matches("\\d+\\.log");
    }

    /**
     * Write a thread dump of each live process in {@code pids} (jcmd of this JDK) to {@code dir/threads-<pid>.log}, so
     * {@link #keepingLogsOnFailure} keeps it beside the logs: what a node was doing when a wait ran out. Best effort.
     */
    static void dumpThreads(final Path dir, final List<Long> pids)
    {
        final String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
        for (final long pid : pids)
        {
            if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
            {
                try
                {
                    final Process p = new ProcessBuilder(jcmd, Long.toString(pid), "Thread.print", "-l")
                        .redirectErrorStream(true)
                        .redirectOutput(dir.resolve("threads-" + pid + ".log").toFile())
                        .start();
                    if (!p.waitFor(60, TimeUnit.SECONDS))
                    {
                        p.destroyForcibly();
                    }
                }
                catch (final IOException ex)
                {
                    // best effort: the logs are kept without it
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** A request that may throw anything. */
    @FunctionalInterface
    interface Request<T>
    {
        T call() throws Exception;
    }

    /**
     * {@code request}, asked again while a node answers BUSY ("retry later": a node that lost its lease on a loaded
     * host refuses writes until a renewal commits, and a refused write was not applied), up to {@link #WAIT_SECONDS}.
     */
    static <T> T retryingBusy(final Request<T> request) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (true)
        {
            try
            {
                return request.call();
            }
            catch (final KvException ex)
            {
                if (ex.error() != KvError.SERVER_BUSY || System.nanoTime() > deadline)
                {
                    throw ex;
                }
            }
            Thread.sleep(100);
        }
    }

    static KvClient client(final String seed)
    {
        return KvClient.builder().server(seed).transport("tcp").connectTimeout(Duration.ofSeconds(30))
            .requestTimeout(Duration.ofSeconds(30)).build();
    }

    /**
     * Three free ports for the nodes whose control ports start at {@code base} (metrics or RESP ports):
     * {@code base + 5 .. base + 7}, in node 1's block of ten beside its control, data and Raft ports.
     */
    static int freeBesideNodeOne(final int base) throws IOException
    {
        for (int p = base + 5; p < base + 8; p++)
        {
            try (ServerSocket s = new ServerSocket(p, 1, InetAddress.getLoopbackAddress()))
            {
                s.setReuseAddress(true);
            }
        }
        return base + 5;
    }

    /**
     * A base port whose nodes' ports (control, data, Raft: base + 10(i-1) + 0..2) and node 1's spare ports (base + 5..7)
     * are free now.
     */
    static int freeBasePort(final int nodes) throws IOException
    {
        for (int attempt = 0; attempt < 200; attempt++)
        {
            final int base = ThreadLocalRandom.current().nextInt(20_000, 60_000);
            if (allFree(base, nodes))
            {
                return base;
            }
        }
        throw new IOException("no free block of ports for " + nodes + " nodes");
    }

    private static boolean allFree(final int base, final int nodes)
    {
        for (int i = 0; i < nodes; i++)
        {
            // Control, data and Raft ports; in node 1's block also base + 5 .. 7 (freeBesideNodeOne's metrics or RESP
            // ports), so that a base this returns has those free too (a port taken there failed a run).
            final int[] offsets = i == 0 ? new int[] {0, 1, 2, 5, 6, 7} : new int[] {0, 1, 2};
            for (final int k : offsets)
            {
                try (ServerSocket s = new ServerSocket(base + 10 * i + k, 1, InetAddress.getLoopbackAddress()))
                {
                    s.setReuseAddress(true);
                }
                catch (final IOException ex)
                {
                    return false;
                }
            }
        }
        return true;
    }
}
