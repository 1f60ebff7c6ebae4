package io.rdmakv.cli.doctor;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

class CommandRunnerTest
{
    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void shouldReturnOutputWhateverTheExitCode()
    {
        assertEquals(Optional.of("a b\n"),
            CommandRunner.system().run(List.of("sh", "-c", "echo a b; echo err >&2; exit 1")));
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void shouldGiveEmptyForAMissingProgram()
    {
        assertEquals(Optional.empty(), CommandRunner.system().run(List.of("/nonexistent/rdmakv-no-such-tool")));
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void shouldGiveEmptyAndNotHangWhenTheCommandTakesTooLong()
    {
        // The command would take 30 s: the test's 20 s @Timeout proves the runner gave up on it, without a
        // wall-clock bound of our own that a loaded machine could miss.
        assertEquals(Optional.empty(), CommandRunner.system().run(List.of("sleep", "30")));
    }
}
