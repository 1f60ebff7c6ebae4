package io.rdmakv.it.cluster;

import io.rdmakv.server.cluster.ratis.RatisFixes;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * This module's class path (which the node processes the integration tests start inherit) loads rdmakv's corrected Ratis
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
