package io.rdmakv.transport.libc;

import io.rdmakv.transport.CLayoutCheck;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Compiles {@code libc_layout.c} with gcc and checks every constant of {@link LibCLayout} against the C headers.
 * Skips (with the reason) only when gcc is missing.
 */
class LibCLayoutTest
{
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldMatchTheCHeaders() throws Exception
    {
        Assumptions.assumeTrue(CLayoutCheck.hasGcc(), "skipped: gcc not found on PATH (apt-get install gcc)");
        final Map<String, Long> fromC = CLayoutCheck.valuesFromC("/libc/libc_layout.c");
        final List<String> problems = CLayoutCheck.mismatches(fromC, LibCLayout.byCName());
        if (!problems.isEmpty())
        {
            fail("libc ABI mismatch (" + problems.size() + "):\n  " + String.join("\n  ", problems));
        }
        assertEquals(LibCLayout.byCName().size(), fromC.size());
    }
}
