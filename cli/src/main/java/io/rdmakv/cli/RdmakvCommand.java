package io.rdmakv.cli;

import io.rdmakv.cli.backup.BackupCommand;
import io.rdmakv.cli.backup.RestoreCommand;
import io.rdmakv.cli.bench.BenchCommand;
import io.rdmakv.cli.cluster.ClusterCommand;
import io.rdmakv.cli.doctor.DoctorCommand;
import io.rdmakv.server.cli.LoadCommand;
import io.rdmakv.server.cli.ServerCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/** The top command {@code rdmakv}: only dispatches to its subcommands. */
@Command(name = "rdmakv", mixinStandardHelpOptions = true, versionProvider = RdmakvCommand.Version.class,
    description = {
        "A distributed key-value store on a UCX-style RDMA transport layer (verbs, or TCP without an HCA).",
        "",
        "Start a node with 'rdmakv server', then use get/put/del/scan/range/prefix/stats against it.",
        "'rdmakv demo' runs a node and a workload in one process.",
        "'rdmakv cluster local' starts a replicated cluster of node processes on this machine."},
    exitCodeListHeading = "%nExit codes (client commands; server and doctor list their own):%n",
    exitCodeList = {
        "0:ok",
        "1:key not found (get, del)",
        "2:usage error (also a key or value over the limits)",
        "3:failed: unreachable server, a node that did not answer, rejected, timed out",
        "4:the credential was refused (--secret-file, RDMAKV_SECRET; --user with --password-file, RDMAKV_PASSWORD), " +
            "or the user's role does not allow the operation"},
    // Subcommands: SUBCOMMANDS below, added by RdmakvMain (only the one a command line names, when it names one).
    subcommands = {})
public final class RdmakvCommand implements Runnable
{
    /**
     * Every subcommand, in the order help lists them. Not in the annotation: picocli builds the model of every
     * subcommand it is given by reflection (0.4-0.9 s of a one-shot command's 1.5-2 s on a loaded 2-core host,
     * async-profiler), so {@link RdmakvMain#commandLine(Io, ArgBytes, String...)} adds only the one a command line
     * names.
     */
    static final java.util.List<Class<?>> SUBCOMMANDS = java.util.List.of(
        ServerCommand.class,
        LoadCommand.class,
        BackupCommand.class,
        RestoreCommand.class,
        GetCommand.class,
        PutCommand.class,
        MsetCommand.class,
        DelCommand.class,
        ScanCommand.class,
        RangeCommand.class,
        PrefixCommand.class,
        ExpireCommand.class,
        TtlCommand.class,
        IncrCommand.class,
        StatsCommand.class,
        DemoCommand.class,
        DoctorCommand.class,
        BenchCommand.class,
        ClusterCommand.class,
        UserCommand.class,
        CommandLine.HelpCommand.class);

    private final Io io;
    private final ArgBytes args;

    @Spec
    CommandSpec spec;

    /** Read by {@link LogSetup} before picocli runs (logging starts before parsing); declared here for help. */
    @Option(names = LogSetup.CONFIG_FLAG, paramLabel = "FILE", scope = ScopeType.INHERIT,
        description = "Logback configuration replacing the built-in one (also RDMAKV_LOG_CONFIG).")
    String logConfig;

    @Option(names = LogSetup.FORMAT_FLAG, paramLabel = "FORMAT", scope = ScopeType.INHERIT,
        description = "Log lines as text (default) or json, on stderr (also RDMAKV_LOG_FORMAT).")
    String logFormat;

    /**
     * @param io   the standard streams.
     * @param args the command line's bytes, for keys and values given as arguments.
     */
    public RdmakvCommand(final Io io, final ArgBytes args)
    {
        this.io = io;
        this.args = args;
    }

    public Io io()
    {
        return io;
    }

    /** The bytes of the command-line arguments (keys and values are bytes, not text). */
    public ArgBytes args()
    {
        return args;
    }

    @Override
    public void run()
    {
        spec.commandLine().usage(io.out());
    }

    /** The version from the jar's manifest when packaged, else "development". */
    public static final class Version implements CommandLine.IVersionProvider
    {
        @Override
        public String[] getVersion()
        {
            final String v = RdmakvCommand.class.getPackage().getImplementationVersion();
            return new String[] {"rdmakv " + (v == null ? "(development build)" : v)};
        }
    }
}
