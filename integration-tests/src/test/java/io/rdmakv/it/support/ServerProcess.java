package io.rdmakv.it.support;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A key-value server running as a separate OS process, started the way an operator would start it (the server
 * module's main class, the project's JVM flags), so that {@code kill -9}, a real process boundary and real sockets
 * are part of every test that uses it.
 *
 * <p>The child runs the {@code java} of this JVM with this JVM's class path (the module's test class path includes
 * the server and every transport). It is ready when it prints the server's READY line on stdout, from which the bound
 * ports are parsed; stdout and stderr go to files under {@code target/it-logs} whose tail is quoted in every failure.
 * {@link #kill()} is SIGKILL, {@link #stop()} SIGTERM; {@link #restart()} starts a new process on the same data dir.
 */
public final class ServerProcess implements AutoCloseable
{
    /** The server module's entry point (prints READY with the bound ports). */
    public static final String MAIN_CLASS = System.getProperty("rdmakv.it.serverMain", "io.rdmakv.server.cli.ServerMain");

    /** Flags every rdmakv JVM needs (Agrona, Netty reach into the JDK); mirrors the root pom's test.jvm.args. */
    public static final List<String> PROJECT_JVM_FLAGS = List.of(
        "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
        "--add-opens", "java.base/java.nio=ALL-UNNAMED",
        "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
        "-Dio.netty.tryReflectionSetAccessible=true",
        "--enable-native-access=ALL-UNNAMED");

    private static final Pattern READY = Pattern.compile("^READY\\b(.*)$");
    private static final Pattern FIELD = Pattern.compile("([A-Za-z][A-Za-z0-9_.-]*)=(\\S+)");
    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private final Builder config;
    private final String name;
    private Process process;
    private Path stdoutLog;
    private Path stderrLog;
    private Map<String, String> readyFields = Map.of();
    private InetSocketAddress controlAddress;
    private InetSocketAddress dataAddress;
    private int starts;

    private ServerProcess(final Builder config)
    {
        this.config = config;
        this.name = config.name + "-" + SEQUENCE.incrementAndGet();
    }

    public static Builder builder(final Path dataDir)
    {
        return new Builder(dataDir);
    }

    /** Start the process and wait for READY; on timeout or early exit the process is killed and the logs quoted. */
    public ServerProcess start()
    {
        if (process != null && process.isAlive())
        {
            throw new IllegalStateException(name + " is already running (pid " + process.pid() + ")");
        }
        starts++;
        final Path logDir = logDirectory();
        stdoutLog = logDir.resolve(name + "-" + starts + ".stdout.log");
        stderrLog = logDir.resolve(name + "-" + starts + ".stderr.log");
        writeConfig();
        final List<String> command = command();
        final ProcessBuilder pb = new ProcessBuilder(command)
            .redirectError(stderrLog.toFile())
            .redirectInput(ProcessBuilder.Redirect.PIPE);
        try
        {
            Files.writeString(stdoutLog, "# " + String.join(" ", command) + System.lineSeparator());
            process = pb.start();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot start " + name + ": " + command, ex);
        }
        ProcessJanitor.track(process);

        final CompletableFuture<String> ready = new CompletableFuture<>();
        final Process p = process;
        final Path out = stdoutLog;
        final Thread pump = new Thread(() -> pumpStdout(p, out, ready), name + "-stdout");
        pump.setDaemon(true);
        pump.start();

        final String readyLine;
        try
        {
            readyLine = ready.get(config.readyTimeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (final TimeoutException ex)
        {
            ThreadDumps.request(process.pid(), stdoutLog);
            kill();
            throw new IllegalStateException(name + " printed no READY line within " + config.readyTimeout + diagnosis(), ex);
        }
        catch (final ExecutionException ex)
        {
            kill();
            throw new IllegalStateException(name + " exited before READY: " + ex.getCause().getMessage() + diagnosis(), ex);
        }
        catch (final InterruptedException ex)
        {
            kill();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + name, ex);
        }
        parseReady(readyLine);
        return this;
    }

    /** SIGKILL and wait for the process to be gone; a no-op when it is not running. */
    public void kill()
    {
        if (process != null)
        {
            process.destroyForcibly();
            waitQuietly(Duration.ofSeconds(10));
        }
    }

    /**
     * SIGTERM (a graceful shutdown) and wait for exit.
     *
     * @return the exit code.
     * @throws IllegalStateException when the process does not exit within {@code timeout} (it is then killed).
     */
    public int stop(final Duration timeout)
    {
        if (process == null)
        {
            throw new IllegalStateException(name + " was never started");
        }
        process.destroy();
        return awaitExit(timeout, "SIGTERM");
    }

    /**
     * Send {@code signal} (a name {@code kill -s} takes, e.g. {@code INT}) and wait for exit.
     *
     * @return the exit code.
     * @throws IllegalStateException when the process does not exit within {@code timeout} (it is then killed).
     */
    public int stop(final String signal, final Duration timeout)
    {
        if (process == null)
        {
            throw new IllegalStateException(name + " was never started");
        }
        try
        {
            final Process kill = new ProcessBuilder("kill", "-s", signal, Long.toString(process.pid()))
                .redirectErrorStream(true).start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0)
            {
                throw new IllegalStateException("kill -s " + signal + " " + process.pid() + " failed");
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot run kill", ex);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while signalling " + name, ex);
        }
        return awaitExit(timeout, "SIG" + signal);
    }

    private int awaitExit(final Duration timeout, final String signal)
    {
        try
        {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS))
            {
                kill();
                throw new IllegalStateException(name + " did not exit within " + timeout + " of " + signal + diagnosis());
            }
        }
        catch (final InterruptedException ex)
        {
            kill();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while stopping " + name, ex);
        }
        return process.exitValue();
    }

    /**
     * Start again on the same data dir (after {@link #kill()} or {@link #stop}). Ports are asked for again as
     * configured; with port 0 (the default) the restarted server binds new ports: read them again.
     */
    public ServerProcess restart()
    {
        if (process != null && process.isAlive())
        {
            throw new IllegalStateException(name + " is still running: kill() or stop() it first");
        }
        return start();
    }

    public boolean isAlive()
    {
        return process != null && process.isAlive();
    }

    public long pid()
    {
        return process.pid();
    }

    /** The control-plane (handshake) address from the READY line: what a client is given as its seed. */
    public InetSocketAddress controlAddress()
    {
        return controlAddress;
    }

    /** The data-path address from the READY line. */
    public InetSocketAddress dataAddress()
    {
        return dataAddress;
    }

    /** {@code host:port} of the control plane, the form {@code KvClient.builder()} and the CLI take. */
    public String seed()
    {
        return controlAddress.getHostString() + ":" + controlAddress.getPort();
    }

    /** Every {@code key=value} field of the READY line, for tests that want more than the ports. */
    public Map<String, String> readyFields()
    {
        return readyFields;
    }

    public Path dataDir()
    {
        return config.dataDir;
    }

    public Path stderrLog()
    {
        return stderrLog;
    }

    public Path stdoutLog()
    {
        return stdoutLog;
    }

    /** The last lines of both logs, for assertion messages. */
    public String diagnosis()
    {
        return System.lineSeparator() + "--- " + stdoutLog + " (tail) ---" + System.lineSeparator() + tail(stdoutLog) +
            "--- " + stderrLog + " (tail) ---" + System.lineSeparator() + tail(stderrLog);
    }

    @Override
    public void close()
    {
        kill();
    }

    @Override
    public String toString()
    {
        return name + (process == null ? " (not started)" : " pid " + process.pid() + (isAlive() ? "" : " (exited)")) +
            (controlAddress == null ? "" : " control " + seed());
    }

    /** The properties file the server is started with: next to the data dir, rewritten on every start. */
    public Path configFile()
    {
        return config.dataDir.resolveSibling(config.dataDir.getFileName() + ".properties");
    }

    private void writeConfig()
    {
        final StringBuilder sb = new StringBuilder("# written by " + ServerProcess.class.getName() + " for " + name)
            .append(System.lineSeparator());
        config.settings.forEach((k, v) -> sb.append(k).append('=').append(v).append(System.lineSeparator()));
        try
        {
            Files.createDirectories(config.dataDir.toAbsolutePath().getParent());
            Files.writeString(configFile(), sb.toString(), StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot write " + configFile(), ex);
        }
    }

    private List<String> command()
    {
        final List<String> command = new ArrayList<>(config.commandPrefix);
        command.add(ProcessHandle.current().info().command().orElse(
            Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.add("-Xmx" + config.heap);
        command.add("-XX:MaxDirectMemorySize=" + config.maxDirectMemory);
        command.add("-XX:+UseSerialGC");
        if (!config.jit.isEmpty())
        {
            command.add(config.jit);
        }
        command.addAll(PROJECT_JVM_FLAGS);
        // The native binding this JVM was told to use goes to the node too (the SoftRoCE guest's JDK 25 leg runs with
        // -Drdmakv.native=ffm): a node that fell back to JNA fails at its first native call instead of passing.
        final String binding = System.getProperty("rdmakv.native");
        if (binding != null && !config.systemProperties.containsKey("rdmakv.native"))
        {
            command.add("-Drdmakv.native=" + binding);
        }
        config.systemProperties.forEach((k, v) -> command.add("-D" + k + "=" + v));
        command.add("-cp");
        // Under the JUnit console launcher (the SoftRoCE guest) java.class.path is the launcher jar alone; the
        // guest job passes the real test class path as rdmakv.it.classpath.
        command.add(System.getProperty("rdmakv.it.classpath", System.getProperty("java.class.path")));
        command.add(config.mainClass);
        command.add("--config");
        command.add(configFile().toString());
        command.addAll(config.args);
        return command;
    }

    private static void pumpStdout(final Process p, final Path out, final CompletableFuture<String> ready)
    {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            Writer log = Files.newBufferedWriter(out, StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.APPEND))
        {
            String line;
            while ((line = reader.readLine()) != null)
            {
                log.write(line);
                log.write(System.lineSeparator());
                log.flush();
                if (!ready.isDone() && READY.matcher(line).find())
                {
                    ready.complete(line);
                }
            }
        }
        catch (final IOException ignore)
        {
            // The process went away; the exit below reports it.
        }
        if (!ready.isDone())
        {
            int code = -1;
            try
            {
                code = p.waitFor();
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
            ready.completeExceptionally(new IllegalStateException("process exited with code " + code));
        }
    }

    private void parseReady(final String line)
    {
        final Matcher m = READY.matcher(line);
        if (!m.find())
        {
            throw new IllegalStateException("not a READY line: " + line);
        }
        final Map<String, String> fields = new LinkedHashMap<>();
        final Matcher f = FIELD.matcher(m.group(1));
        while (f.find())
        {
            fields.put(f.group(1), f.group(2));
        }
        readyFields = Map.copyOf(fields);
        controlAddress = address(fields, "control", "controlPort");
        dataAddress = address(fields, "data", "dataPort");
        if (controlAddress == null)
        {
            kill();
            throw new IllegalStateException(name + ": READY line names no control port: " + line + diagnosis());
        }
    }

    private static InetSocketAddress address(final Map<String, String> fields, final String hostPort, final String port)
    {
        final String hp = fields.get(hostPort);
        if (hp != null)
        {
            final int colon = hp.lastIndexOf(':');
            if (colon > 0)
            {
                return new InetSocketAddress(hp.substring(0, colon).replace("[", "").replace("]", ""),
                    Integer.parseInt(hp.substring(colon + 1)));
            }
            return new InetSocketAddress("127.0.0.1", Integer.parseInt(hp));
        }
        final String p = fields.get(port);
        return p == null ? null : new InetSocketAddress("127.0.0.1", Integer.parseInt(p));
    }

    private void waitQuietly(final Duration timeout)
    {
        try
        {
            process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private static String tail(final Path file)
    {
        if (file == null || !Files.exists(file))
        {
            return "(none)" + System.lineSeparator();
        }
        try
        {
            final List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            final StringBuilder sb = new StringBuilder();
            for (final String l : lines.subList(Math.max(0, lines.size() - 40), lines.size()))
            {
                sb.append(l).append(System.lineSeparator());
            }
            return sb.toString();
        }
        catch (final IOException | UncheckedIOException ex)
        {
            return "(unreadable: " + ex + ")" + System.lineSeparator();
        }
    }

    private static Path logDirectory()
    {
        final Path dir = Path.of(System.getProperty("basedir", "."), "target", "it-logs");
        try
        {
            return Files.createDirectories(dir);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /** How to start a server process; every option maps to a server command-line flag or a JVM setting. */
    public static final class Builder
    {
        private final Path dataDir;
        private String name = "server";
        private String mainClass = MAIN_CLASS;
        private final Map<String, String> settings = new LinkedHashMap<>();
        private String heap = "256m";
        private String maxDirectMemory = "512m";
        // C1 only by default: a test server lives seconds, and on two shared cores the C2 compiler threads cost more
        // start-up time than its code saves.
        private String jit = "-XX:TieredStopAtLevel=1";
        private Duration readyTimeout = Duration.ofSeconds(180);
        private final List<String> args = new ArrayList<>();
        private final Map<String, String> systemProperties = new LinkedHashMap<>();
        private List<String> commandPrefix = List.of();

        private Builder(final Path dataDir)
        {
            this.dataDir = dataDir;
            // Loopback only, ports chosen by the kernel, TCP (the suite must run without an HCA), a small pool.
            settings.put("data.dir", dataDir.toString());
            settings.put("host", "127.0.0.1");
            settings.put("advertised.host", "127.0.0.1");
            settings.put("control.port", "0");
            settings.put("data.port", "0");
            settings.put("transport", TestTransport.name());
            settings.put("pool.size", "32MiB");
            if ("verbs".equals(TestTransport.name()))
            {
                // In the SoftRoCE guest every JVM runs under emulation: a cold client JVM can take longer than the
                // node's 5 s HELLO deadline from its TCP connect to its HELLO (seen in MixedFleetVerbsTest at load).
                settings.put("auth.handshakeTimeoutMs", "60000");
            }
        }

        /** A server setting by its config-file name (see the server's {@code ServerConfig}), e.g. {@code pool.size}. */
        public Builder setting(final String key, final String value)
        {
            settings.put(key, value);
            return this;
        }

        /** A name for logs and thread names. */
        public Builder name(final String value)
        {
            this.name = value;
            return this;
        }

        /** Control-plane port; 0 (the default) lets the server pick one and report it on READY. */
        public Builder controlPort(final int value)
        {
            return setting("control.port", Integer.toString(value));
        }

        /** Data-path port; 0 (the default) lets the server pick one. */
        public Builder dataPort(final int value)
        {
            return setting("data.port", Integer.toString(value));
        }

        /** Another entry point taking the same flags (the default is the server module's {@link #MAIN_CLASS}). */
        public Builder mainClass(final String value)
        {
            this.mainClass = value;
            return this;
        }

        public Builder heap(final String value)
        {
            this.heap = value;
            return this;
        }

        public Builder maxDirectMemory(final String value)
        {
            this.maxDirectMemory = value;
            return this;
        }

        /** C1 only (the default): starts faster, which matters for short tests on two shared cores. */
        public Builder quickStart()
        {
            this.jit = "-XX:TieredStopAtLevel=1";
            return this;
        }

        /** The full tiered JIT, for long runs where peak speed matters more than start-up (soak). */
        public Builder fullJit()
        {
            this.jit = "";
            return this;
        }

        public Builder readyTimeout(final Duration value)
        {
            this.readyTimeout = value;
            return this;
        }

        /** Extra command-line flags after {@code --config F}; settings are better given through {@link #setting}. */
        public Builder arg(final String... values)
        {
            args.addAll(List.of(values));
            return this;
        }

        /**
         * Words before {@code java} that exec it, e.g. {@code ip netns exec NS} to start the server inside a network
         * namespace ({@link #pid()} stays the JVM's: {@code ip netns exec} execs in place).
         */
        public Builder commandPrefix(final List<String> words)
        {
            this.commandPrefix = List.copyOf(words);
            return this;
        }

        public Builder systemProperty(final String key, final String value)
        {
            systemProperties.put(key, value);
            return this;
        }

        public ServerProcess build()
        {
            return new ServerProcess(this);
        }

        /** Build and start: returns once the server printed READY. */
        public ServerProcess start()
        {
            return build().start();
        }
    }
}
