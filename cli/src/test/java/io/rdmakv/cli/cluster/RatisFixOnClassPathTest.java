package io.rdmakv.cli.cluster;

import io.rdmakv.server.cluster.ratis.RatisFixes;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * This module's class path (which the `cluster local` nodes the launcher's tests start inherit) loads rdmakv's corrected Ratis
 * {@code ServerImplUtils}, not ratis-server's ({@link RatisFixes}).
 */
class RatisFixOnClassPathTest
{
    @Test
    void shouldLoadTheCorrectedRatisClass()
    {
        assertTrue(RatisFixes.followerCommitFixed());
    }
}
