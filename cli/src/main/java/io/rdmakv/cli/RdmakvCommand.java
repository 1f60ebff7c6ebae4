package io.rdmakv.cli;

import io.rdmakv.cli.bench.BenchCommand;
import io.rdmakv.cli.cluster.ClusterCommand;
import io.rdmakv.cli.doctor.DoctorCommand;
import io.rdmakv.server.cli.BackupCommand;
import io.rdmakv.server.cli.LoadCommand;
import io.rdmakv.server.cli.RestoreCommand;
import io.rdmakv.server.cli.ServerCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** The top command {@code rdmakv}: only dispatches to its subcommands. */
@Command(name = "rdmakv", mixinStandardHelpOptions = true, versionProvider = RdmakvCommand.Version.class,
    description = {
        "A distributed key-value store on a UCX-style RDMA transport layer (verbs, or TCP without an HCA).",
        "",
        "Start a node with 'rdmakv server', then use get/put/del/stats against it.",
        "'rdmakv demo' runs a node and a workload in one process.",
        "'rdmakv cluster local' starts a replicated cluster of node processes on this machine."},
    subcommands = {
        ServerCommand.class,
        LoadCommand.class,
        BackupCommand.class,
        RestoreCommand.class,
        GetCommand.class,
        PutCommand.class,
        DelCommand.class,
        StatsCommand.class,
        DemoCommand.class,
        DoctorCommand.class,
        BenchCommand.class,
        ClusterCommand.class,
        CommandLine.HelpCommand.class})
public final class RdmakvCommand implements Runnable
{
    private final Io io;

    @Spec
    CommandSpec spec;

    public RdmakvCommand(final Io io)
    {
        this.io = io;
    }

    public Io io()
    {
        return io;
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
