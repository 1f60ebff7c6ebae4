package io.rdmakv.it.support.faults;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The partition injector itself: namespaces reach each other, stop at a blackhole, heal, and vanish on close. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NetworkLabTest
{
    @BeforeAll
    static void requireNamespaces()
    {
        final String reason = NetworkLab.unavailableReason();
        if (reason != null)
        {
            System.out.println("[NetworkLabTest] skipped: " + reason);
        }
        assumeTrue(reason == null, reason);
    }

    @Test
    void shouldReachUntilABlackholeAndAgainAfterHeal()
    {
        try (NetworkLab lab = NetworkLab.create(3))
        {
            assertTrue(lab.canReach(0, 1), "0 -> 1 before the partition");
            assertTrue(lab.canReach(2, 0), "2 -> 0 before the partition");
            lab.partition(List.of(0), List.of(1, 2));
            assertFalse(lab.canReach(0, 1), "0 -> 1 across the partition");
            assertFalse(lab.canReach(2, 0), "2 -> 0 across the partition");
            assertTrue(lab.canReach(1, 2), "1 -> 2 on the same side");
            lab.heal();
            assertTrue(lab.canReach(0, 1), "0 -> 1 after heal");
            assertTrue(lab.canReach(2, 0), "2 -> 0 after heal");
        }
    }

    @Test
    void shouldLetTheHostReachNodesUnlessIsolated()
    {
        try (NetworkLab lab = NetworkLab.create(2))
        {
            assertTrue(lab.hostCanReach(1), "host -> node 1");
            lab.isolate(1);
            assertFalse(lab.hostCanReach(1), "host -> isolated node 1");
            assertFalse(lab.canReach(0, 1), "0 -> isolated node 1");
            lab.heal();
            assertTrue(lab.hostCanReach(1), "host -> node 1 after heal");
        }
    }

    @Test
    void shouldDeleteEveryNamespaceOnClose()
    {
        final NetworkLab lab = NetworkLab.create(2);
        final List<String> made = lab.namespaces();
        final String open = listed();
        for (final String ns : made)
        {
            assertTrue(open.contains(ns), ns + " listed while the lab is open: " + open);
        }
        lab.close();
        final String after = listed();
        for (final String ns : made)
        {
            assertFalse(after.contains(ns), ns + " still listed after close: " + after);
        }
        lab.close();
    }

    private static String listed()
    {
        return Commands.runOrThrow(List.of("ip", "netns", "list"));
    }
}
