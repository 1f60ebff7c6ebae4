package io.rdmakv.transport.diag;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
        final long start = System.nanoTime();
        assertEquals(Optional.empty(), CommandRunner.system().run(List.of("sleep", "30")));
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(CommandRunner.TIMEOUT_SECONDS + 5));
    }
}
