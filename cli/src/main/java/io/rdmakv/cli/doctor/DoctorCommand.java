package io.rdmakv.cli.doctor;

import io.rdmakv.cli.RdmakvCommand;
import io.rdmakv.pool.ArenaException;
import io.rdmakv.pool.MemlockLimit;
import io.rdmakv.server.ServerPinnedMemory;
import io.rdmakv.server.config.ConfigException;
import io.rdmakv.server.config.PoolKeys;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.WorkerPinning;
import io.rdmakv.transport.device.InfinibandSysfs;
import io.rdmakv.transport.select.TransportSelector;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code rdmakv doctor}: checks this machine against a server configuration and prints a report in sections, each
 * check OK/WARN/FAIL with the fix: RDMA devices and ports (state, rate, link layer, GID table, active MTU when the
 * verbs transport can query it), error and hardware counters, {@code /dev/infiniband}, libibverbs, which transport
 * {@code auto} would pick and why, and what the server would pin (the pool; on verbs also its worker's endpoint
 * buffers) against {@code RLIMIT_MEMLOCK}. Exit 0 when the configuration
 * can work (the TCP fallback on a machine without RDMA is a WARN), 2 when it cannot.
 */
@Command(name = "doctor", mixinStandardHelpOptions = true,
    header = "Check this machine for rdmakv: RDMA devices and ports, the transport 'auto' picks, memlock vs pinning.",
    description = {
        "Check this machine for rdmakv: RDMA devices, ports, GIDs, counters, /dev/infiniband, libibverbs,",
        "which transport 'auto' picks and why, and RLIMIT_MEMLOCK against what the server pins",
        "(the pool; on verbs also its worker's endpoint buffers).",
        "Exit 0 when the configuration can work (warnings included), 2 when it cannot."})
public final class DoctorCommand implements Callable<Integer>
{
    @ParentCommand
    RdmakvCommand parent;

    @Option(names = "--config", paramLabel = "FILE", description = "server properties file to check; flags override it")
    Path configFile;

    @Option(names = "--pool-size", paramLabel = "SIZE", description = "pool size, e.g. 64MiB (default: the server's)")
    String poolSize;

    @Option(names = "--transport", description = "auto | tcp | verbs (default: the server's, auto)")
    String transport;

    @Option(names = "--pin", description = "AUTO | REQUIRED | BEST_EFFORT | OFF (default: the server's, AUTO)")
    String pin;

    @Option(names = "--json", description = "print one JSON document instead of the text report")
    boolean json;

    @Option(names = "--sysfs-root", paramLabel = "DIR", description = "RDMA sysfs (default: ${DEFAULT-VALUE})",
        defaultValue = "/sys/class/infiniband")
    Path sysfsRoot;

    @Option(names = "--dev-dir", paramLabel = "DIR", description = "RDMA device files (default: ${DEFAULT-VALUE})",
        defaultValue = "/dev/infiniband")
    Path deviceDir;

    @Override
    public Integer call()
    {
        final List<Check> configChecks = new ArrayList<>();
        ServerConfig config = null;
        try
        {
            config = ServerConfig.load(configFile, overrides());
            configChecks.add(Check.ok("settings", (configFile == null ? "server defaults" : "from " + configFile) +
                (overrides().isEmpty() ? "" : " with " + overrides()) + ": pool.size=" + config.poolSize() +
                ", pool.pin=" + config.pinMode() + ", transport=" + config.transport()));
        }
        catch (final ConfigException ex)
        {
            configChecks.add(Check.fail("settings", ex.getMessage(),
                "correct the setting (see `rdmakv server --help`; sizes like 64MiB, pin AUTO|REQUIRED|BEST_EFFORT|OFF)"));
        }
        final String requested = config != null ? config.transport() :
            transport != null ? transport : TransportSelector.AUTO;

        final TransportDoctor doctor = new TransportDoctor(new InfinibandSysfs(sysfsRoot), deviceDir,
            LibibverbsLocator.system(), TransportSelector.fromClassPath(), requested);
        final DoctorReport transportReport = doctor.examine();

        final List<ReportSection> sections = new ArrayList<>();
        sections.add(new ReportSection("configuration", configChecks));
        sections.addAll(transportReport.sections());
        sections.add(new ReportSection("memory pool", List.of(memlock(config, doctor))));
        final DoctorReport report = new DoctorReport(sections, transportReport.devices(),
            transportReport.portAttributes());

        final PrintStream out = parent.io().out();
        out.print(json ? ReportJson.render(report) + "\n" : ReportText.render(report));
        out.flush();
        return report.exitCode();
    }

    private Map<String, String> overrides()
    {
        final Map<String, String> m = new LinkedHashMap<>();
        if (poolSize != null)
        {
            m.put(PoolKeys.SIZE.name(), poolSize);
        }
        if (transport != null)
        {
            m.put("transport", transport);
        }
        if (pin != null)
        {
            m.put("pool.pin", pin);
        }
        return m;
    }

    private static Check memlock(final ServerConfig config, final TransportDoctor doctor)
    {
        if (config == null)
        {
            return Check.warn(MemlockCheck.NAME, "not checked: the configuration is invalid",
                "fix the configuration first");
        }
        final MemlockLimit limit;
        try
        {
            limit = MemlockLimit.current();
        }
        catch (final ArenaException | LinkageError ex)
        {
            return Check.warn(MemlockCheck.NAME, "cannot read RLIMIT_MEMLOCK: " + ex.getMessage(),
                "check it by hand with `ulimit -l` against pool.size " + config.poolSize());
        }
        final String transport = effectiveTransport(doctor);
        final ServerPinnedMemory pinned;
        try
        {
            pinned = pinnedMemory(config, doctor, transport);
        }
        catch (final TransportException ex)
        {
            return Check.fail(MemlockCheck.NAME, "cannot size the " + transport + " transport's buffers: " +
                ex.getMessage(), "correct the setting");
        }
        return MemlockCheck.evaluate(limit, pinned, config.pinMode(), transport);
    }

    /**
     * What the server would pin on {@code transport}, whose buffers are sized from the settings alone (available or
     * not); the pool alone when the transport is unknown.
     */
    private static ServerPinnedMemory pinnedMemory(final ServerConfig config, final TransportDoctor doctor,
        final String transport)
    {
        for (final TransportProvider provider : doctor.selector().providers())
        {
            if (provider.name().equals(transport))
            {
                return ServerPinnedMemory.of(config, provider);
            }
        }
        return new ServerPinnedMemory(config.poolSize(), ServerPinnedMemory.SERVER_WORKERS, WorkerPinning.NONE);
    }

    /** The transport a server with this configuration would run on, which decides the pin mode AUTO resolves to. */
    private static String effectiveTransport(final TransportDoctor doctor)
    {
        try
        {
            return doctor.selector().evaluate(doctor.requestedTransport()).provider().name();
        }
        catch (final TransportException ex)
        {
            return TransportSelector.AUTO.equals(doctor.requestedTransport()) ? null : doctor.requestedTransport();
        }
    }
}
