package io.rdmakv.cli.cluster;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The ADMIN commands the voter verbs send (their options parsed as an operator types them). */
class VoterCommandsTest
{
    private static <T> T parse(final T command, final String... args)
    {
        new CommandLine(command).parseArgs(args);
        return command;
    }

    @Test
    void shouldSendTheVoterChangeAnOperatorAskedFor()
    {
        assertEquals("add-voter 4 10.0.0.4:7432", parse(new VoterCommands.AddVoter(), "--server", "h:7400",
            "--node", "4", "--raft-address", "10.0.0.4:7432").command());
        assertEquals("remove-voter 3", parse(new VoterCommands.RemoveVoter(), "-s", "h:7400", "--node", "3").command());
        assertEquals("remove-voter 3 force", parse(new VoterCommands.RemoveVoter(), "-s", "h:7400", "--node", "3",
            "--force").command());
        assertEquals("replace-voter 3 4 10.0.0.4:7432", parse(new VoterCommands.ReplaceVoter(), "-s", "h:7400",
            "--node", "3", "--with", "4", "--raft-address", "10.0.0.4:7432").command());
        assertEquals("remove-node 3 force", parse(new ClusterCommand.RemoveNode(), "-s", "h:7400", "--node", "3",
            "--force").command());
        assertEquals(120_000, parse(new VoterCommands.ReplaceVoter(), "-s", "h", "--node", "3", "--with", "4",
            "--raft-address", "h:1").timeout(), "a catch-up may take a while");
        assertEquals(600_000, parse(new ClusterCommand.RemoveNode(), "-s", "h", "--node", "3").timeout(),
            "a drain waits for catch-ups (the annotated default used to override this)");
        assertEquals(5, parse(new ClusterCommand.RemoveNode(), "-s", "h", "--node", "3", "--timeout-ms", "5")
            .timeout());
    }

    @Test
    void shouldRequireTheNewVotersRaftAddress()
    {
        assertThrows(CommandLine.MissingParameterException.class, () -> parse(new VoterCommands.AddVoter(), "-s",
            "h:7400", "--node", "4"));
    }
}
