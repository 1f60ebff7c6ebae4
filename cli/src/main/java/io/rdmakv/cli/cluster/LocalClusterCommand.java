package io.rdmakv.cli.cluster;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rdmakv.cli.ExitCodes;
import io.rdmakv.cli.Json;
import io.rdmakv.cli.RdmakvMain;
import io.rdmakv.client.KvException;
import io.rdmakv.protocol.wire.AdminReply;
import io.rdmakv.server.config.RespKeys;
import io.rdmakv.transport.tls.TlsSettings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code rdmakv cluster local}: a replicated cluster of separate node processes on this machine, in the foreground,
 * as Redis's create-cluster script does. Node i (from 1) listens on control port {@code base + 10(i-1)}, data port
 * {@code + 1} and, when it is a voter (the first three, or five from five nodes on), Raft port {@code + 2}; its data
 * and log ({@code node-i.log}) live in {@code data-dir/node-i}. With {@code --metrics-base-port P}, node i serves its
 * metrics and health checks on {@code P + i - 1} (setting {@code metrics.port}); with {@code --resp-base-port R}, Redis
 * clients on {@code R + i - 1} ({@code resp.port}). Prints one line per node with its pid, then the seed
 * address once the first slot layout is committed; Ctrl-C (or SIGTERM) stops every node.
 * <p>
 * A node that exits on its own (a crash, a {@code kill -9} in a failure drill) is reported on stderr with the way
 * back: each node's exact command line is in {@code data-dir/node-i/restart.sh}, which restarts it in the
 * foreground with the same settings (its output appended to its log); it rejoins the cluster and catches up. A node
 * restarted that way is the operator's own process: Ctrl-C of this command does not stop it.
 */
@Command(name = "local", mixinStandardHelpOptions = true,
    description = "Start a replicated cluster of node processes on this machine (foreground; Ctrl-C stops all).")
public final class LocalClusterCommand implements Callable<Integer>
{
    @ParentCommand
    ClusterCommand cluster;

    @Option(names = "--nodes", defaultValue = "3", description = "node processes (default 3)")
    int nodes;

    @Option(names = "--replicas", defaultValue = "1", description = "backups per slot range (default 1)")
    int replicas;

    @Option(names = "--base-port", defaultValue = "7400", description = "control port of node 1 (default 7400)")
    int basePort;

    @Option(names = "--metrics-base-port", paramLabel = "P", defaultValue = "0",
        description = "node i serves /metrics and /health/* on P+i-1 (metrics.port); default 0 = no metrics ports")
    int metricsBasePort;

    @Option(names = "--resp-base-port", paramLabel = "P", defaultValue = "0",
        description = "node i serves Redis clients (RESP) on P+i-1 (resp.port); default 0 = no RESP ports")
    int respBasePort;

    @Option(names = "--data-dir", defaultValue = "./cluster", description = "one directory per node under it")
    Path dataDir;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "address every node binds and advertises")
    String host;

    @Option(names = "--lease-ms", defaultValue = "600", description = "node lease (cluster.leaseMs)")
    long leaseMs;

    @Option(names = {"-S", "--set"}, paramLabel = "KEY=VALUE", description = "any server setting, for every node")
    Map<String, String> settings = new LinkedHashMap<>();

    @Option(names = "--json", description = "print each started node and the READY line as one JSON object a line " +
        "(fields: docs/operations.md)")
    boolean json;

    @Option(names = "--ready-timeout-ms", defaultValue = "180000", description = "give up starting after this")
    long readyTimeoutMs;

    private final List<Process> children = new ArrayList<>();
    /** Set once this command stops its nodes: their exits are expected then, not reported. */
    private volatile boolean stopping;

    @Override
    public Integer call() throws Exception
    {
        final PrintStream out = cluster.root().io().out();
        if (nodes < 1 || nodes > 64 || replicas < 0 || replicas >= Math.max(1, nodes))
        {
            throw new IllegalArgumentException("need 1..64 nodes and fewer replicas than nodes: --nodes " + nodes +
                " --replicas " + replicas);
        }
        checkBasePort("--metrics-base-port", metricsBasePort);
        checkBasePort("--resp-base-port", respBasePort);
        final int voterCount = nodes >= 5 ? 5 : Math.min(nodes, 3);
        final StringBuilder voters = new StringBuilder();
        for (int i = 1; i <= voterCount; i++)
        {
            voters.append(i == 1 ? "" : ",").append(i).append('@').append(host).append(':').append(port(i) + 2);
        }
        final CountDownLatch stop = new CountDownLatch(1);
        final Thread hook = new Thread(() ->
        {
            stopAll();
            stop.countDown();
        }, "rdmakv-cluster-local-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(readyTimeoutMs);
        try
        {
            // Started together (a node's start-up is seconds of RocksDB, pool and transport), then awaited in order.
            for (int i = 1; i <= nodes; i++)
            {
                final Path dir = dataDir.resolve("node-" + i).toAbsolutePath();
                Files.createDirectories(dir);
                children.add(start(i, dir, voters.toString()));
            }
            for (int i = 1; i <= nodes; i++)
            {
                final Path dir = dataDir.resolve("node-" + i).toAbsolutePath();
                final Process p = children.get(i - 1);
                final String ready = awaitReady(p, dir.resolve("node-" + i + ".log"), deadline);
                final Path log = dir.resolve("node-" + i + ".log");
                out.println(json ? nodeJson(i, p.pid(), i <= voterCount, ready, log) : "node " + i + " pid " + p.pid() +
                    (i <= voterCount ? " voter" : " follower") + " " + ready + " log " + log);
                out.flush();
            }
            awaitLayout(deadline);
            for (int i = 1; i <= nodes; i++)
            {
                reportExit(i, children.get(i - 1), dataDir.resolve("node-" + i).toAbsolutePath());
            }
        }
        catch (final IOException | IllegalStateException ex)
        {
            cluster.root().io().err().println("rdmakv cluster local: " + ex.getMessage());
            stopAll();
            return ExitCodes.FAILED;
        }
        if (metricsBasePort > 0 && !json)
        {
            out.println("metrics: Prometheus targets " + host + ":" + metricsBasePort + ".." + host + ":" +
                (metricsBasePort + nodes - 1) + " (/metrics, /health/live, /health/ready)");
        }
        if (respBasePort > 0 && !json)
        {
            out.println("resp: Redis clients on " + host + ":" + respBasePort + ".." + host + ":" +
                (respBasePort + nodes - 1) + " (redis-cli -p " + respBasePort + ")");
        }
        out.println(json ? Json.line(readyJson()) :
            "READY cluster of " + nodes + " nodes, " + replicas + " backup(s) per range, seed " + host + ":" +
            port(1) + " (rdmakv cluster status --server " + host + ":" + port(1) + "); Ctrl-C stops all");
        out.flush();
        stop.await();
        return ExitCodes.OK;
    }

    /** The READY event as JSON; with metrics ports, their targets ({@code metrics}: ["host:port", ...]). */
    private ObjectNode readyJson()
    {
        final ObjectNode ready = Json.mapper().createObjectNode().put("event", "READY").put("nodes", nodes)
            .put("replicas", replicas).put("seed", host + ":" + port(1));
        addresses(ready, "metrics", metricsBasePort);
        addresses(ready, "resp", respBasePort);
        return ready;
    }

    /** {@code name}: ["host:port", ...], one per node from {@code basePort}, when it is set. */
    private void addresses(final ObjectNode ready, final String name, final int basePort)
    {
        if (basePort > 0)
        {
            final ArrayNode targets = ready.putArray(name);
            for (int i = 0; i < nodes; i++)
            {
                targets.add(host + ":" + (basePort + i));
            }
        }
    }

    private void checkBasePort(final String option, final int basePort)
    {
        if (basePort < 0 || basePort > 0 && basePort + nodes - 1 > 65_535)
        {
            throw new IllegalArgumentException(option + " " + basePort + " gives node " + nodes +
                " a port outside 1..65535");
        }
    }

    /**
     * A started node as one JSON line: its id, pid, role, the fields of its READY line (numbers and booleans typed,
     * comma lists as arrays) and its log.
     */
    private static String nodeJson(final int id, final long pid, final boolean voter, final String ready,
        final Path log)
    {
        final ObjectNode node = Json.mapper().createObjectNode().put("event", "NODE").put("id", id).put("pid", pid)
            .put("role", voter ? "VOTER" : "FOLLOWER");
        final ObjectNode fields = node.putObject("ready");
        for (final String field : ready.trim().split("\\s+"))
        {
            final int eq = field.indexOf('=');
            if (eq <= 0)
            {
                continue;
            }
            final String name = field.substring(0, eq);
            final String value = field.substring(eq + 1);
            if (value.matches("-?\\d{1,18}"))
            {
                fields.put(name, Long.parseLong(value));
            }
            else if (value.equals("true") || value.equals("false"))
            {
                fields.put(name, Boolean.parseBoolean(value));
            }
            else if (value.contains(",") && !value.contains(":"))
            {
                final ArrayNode list = fields.putArray(name);
                for (final String v : value.split(","))
                {
                    list.add(v);
                }
            }
            else
            {
                fields.put(name, value);
            }
        }
        return Json.line(node.put("log", log.toString()));
    }

    private int port(final int node)
    {
        return basePort + 10 * (node - 1);
    }

    private Process start(final int node, final Path dir, final String voters) throws IOException
    {
        final List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        for (final String arg : ManagementFactory.getRuntimeMXBean().getInputArguments())
        {
            if (!arg.startsWith("-agentlib") && !arg.startsWith("-javaagent"))
            {
                cmd.add(arg);
            }
        }
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(RdmakvMain.class.getName());
        cmd.add("server");
        cmd.addAll(List.of("--node-id", Integer.toString(node), "--host", host, "--port", Integer.toString(port(node)),
            "--data-port", Integer.toString(port(node) + 1), "--data-dir", dir.toString()));
        final Map<String, String> s = new LinkedHashMap<>();
        s.put("cluster.voters", voters);
        s.put("cluster.replicas", Integer.toString(replicas));
        s.put("cluster.initialNodes", Integer.toString(nodes));
        s.put("cluster.leaseMs", Long.toString(leaseMs));
        if (metricsBasePort > 0)
        {
            s.put("metrics.port", Integer.toString(metricsBasePort + node - 1));
        }
        if (respBasePort > 0)
        {
            s.put(RespKeys.PORT.name(), Integer.toString(respBasePort + node - 1));
        }
        s.putAll(settings);
        s.forEach((k, v) -> cmd.addAll(List.of("-S", k + "=" + v)));
        writeRestartScript(node, dir, cmd);
        final ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.redirectError(ProcessBuilder.Redirect.appendTo(dir.resolve("node-" + node + ".log").toFile()));
        return pb.start();
    }

    /**
     * {@code dir/restart.sh}: the node's command line as this command ran it, every word single-quoted, output
     * appended to the node's log. Written before the node starts, so it exists whatever happens to the node.
     */
    private static void writeRestartScript(final int node, final Path dir, final List<String> cmd) throws IOException
    {
        final StringBuilder script = new StringBuilder("#!/bin/sh\n")
            .append("# Restarts node ").append(node).append(" of `rdmakv cluster local` with the settings it first ran ")
            .append("with; it rejoins the cluster\n# and catches up. Runs in the foreground; its output goes to ")
            .append("node-").append(node).append(".log.\nexec");
        for (final String word : cmd)
        {
            script.append(' ').append(shellQuote(word));
        }
        script.append(" >> ").append(shellQuote(dir.resolve("node-" + node + ".log").toString())).append(" 2>&1\n");
        final Path file = dir.resolve("restart.sh");
        Files.writeString(file, script.toString(), StandardCharsets.UTF_8);
        if (!file.toFile().setExecutable(true, false))
        {
            throw new IOException("cannot make " + file + " executable");
        }
    }

    /** One shell word: single quotes around it, each quote inside as '\''. */
    static String shellQuote(final String word)
    {
        return "'" + word.replace("'", "'\\''") + "'";
    }

    /** Once node {@code node} exits while this command is not stopping it, say so on stderr and how to restart it. */
    private void reportExit(final int node, final Process p, final Path dir)
    {
        final PrintStream err = cluster.root().io().err();
        p.onExit().thenAccept(gone ->
        {
            if (stopping)
            {
                return;
            }
            final int code = gone.exitValue();
            err.println("node " + node + " (pid " + gone.pid() + ") exited with code " + code +
                (code > 128 ? " (signal " + (code - 128) + ")" : "") + "; its ranges fail over to their backups " +
                "once its lease ends. Restart it (it rejoins and catches up; Ctrl-C here does not stop it): " +
                dir.resolve("restart.sh") + " &");
            err.flush();
        });
    }

    /** The node's READY line (its ports), read from its stdout; the rest of stdout goes to its log. */
    private static String awaitReady(final Process p, final Path log, final long deadline) throws IOException
    {
        final BufferedReader lines = new BufferedReader(new InputStreamReader(p.getInputStream(),
            StandardCharsets.UTF_8));
        final String[] ready = new String[1];
        final CountDownLatch seen = new CountDownLatch(1);
        final Thread reader = new Thread(() ->
        {
            try
            {
                String line;
                while ((line = lines.readLine()) != null)
                {
                    if (line.startsWith("READY") && ready[0] == null)
                    {
                        ready[0] = line.substring("READY ".length());
                        seen.countDown();
                    }
                    Files.writeString(log, line + System.lineSeparator(), StandardCharsets.UTF_8,
                        java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
                }
            }
            catch (final IOException ex)
            {
                // The node's stdout closed: it exited.
            }
            seen.countDown();
        }, "rdmakv-cluster-local-out-" + p.pid());
        reader.setDaemon(true);
        reader.start();
        try
        {
            if (!seen.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS) || ready[0] == null)
            {
                throw new IllegalStateException("node (pid " + p.pid() + ") did not start: " +
                    (p.isAlive() ? "no READY in time" : "exited with " + p.exitValue()) + "; see " + log);
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting the nodes");
        }
        return ready[0];
    }

    /** The nodes' secret: {@code auth.secret}, else {@code auth.secretFile}'s, else the environment they inherit. */
    private String secret()
    {
        final String inline = settings.get("auth.secret");
        final String file = settings.get("auth.secretFile");
        return inline != null ? inline : io.rdmakv.protocol.SharedSecret.resolve(file == null ? null : Path.of(file),
            System::getenv, w -> { });
    }

    /** Poll node 1 until the coordination group committed the first slot layout. */
    private void awaitLayout(final long deadline)
    {
        String last = "no answer";
        while (System.nanoTime() < deadline)
        {
            try
            {
                // The nodes' own TLS files serve as a client's: their certificates may sign in as clients too.
                final AdminReply reply = AdminCall.send(host + ":" + port(1), secret(), TlsSettings.of(settings),
                    "json status", Duration.ofSeconds(2));
                if (reply.ok() && !Json.read(reply.text()).path("ranges").isEmpty())
                {
                    return;
                }
                last = reply.text();
            }
            catch (final KvException ex)
            {
                last = ex.getMessage();
            }
            try
            {
                Thread.sleep(100);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                return;
            }
        }
        throw new IllegalStateException("the cluster did not lay out its slots in time (last answer: " + last + ")");
    }

    private void stopAll()
    {
        stopping = true;
        for (final Process p : children)
        {
            p.destroy();
        }
        for (final Process p : children)
        {
            try
            {
                if (!p.waitFor(15, TimeUnit.SECONDS))
                {
                    p.destroyForcibly();
                }
            }
            catch (final InterruptedException ex)
            {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }
}
