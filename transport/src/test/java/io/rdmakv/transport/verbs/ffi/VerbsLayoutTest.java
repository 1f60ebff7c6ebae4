package io.rdmakv.transport.verbs.ffi;

import io.rdmakv.transport.CLayoutCheck;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Compiles {@code verbs_layout.c} with gcc against the installed {@code <infiniband/verbs.h>} and checks every size,
 * offset and enum value it prints against {@link VerbsLayout}. Skips (with the reason) only when gcc or the header is
 * missing; any mismatch fails, listing all of them.
 */
class VerbsLayoutTest
{
    private static final Path HEADER = Path.of("/usr/include/infiniband/verbs.h");

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldMatchEveryStructOffsetAndEnumOfTheCHeader() throws Exception
    {
        Assumptions.assumeTrue(Files.exists(HEADER),
            "skipped: " + HEADER + " not installed (apt-get install libibverbs-dev)");
        Assumptions.assumeTrue(CLayoutCheck.hasGcc(), "skipped: gcc not found on PATH (apt-get install gcc)");

        final Map<String, Long> fromC = CLayoutCheck.valuesFromC("/verbs/verbs_layout.c");
        final List<String> problems = CLayoutCheck.mismatches(fromC, VerbsLayout.byCName());
        if (!problems.isEmpty())
        {
            fail("libibverbs ABI mismatch (" + problems.size() + "): the binding would corrupt memory:\n  " +
                String.join("\n  ", problems));
        }
        assertTrue(fromC.size() > 100, "expected the full list, got " + fromC.size());
    }
}
