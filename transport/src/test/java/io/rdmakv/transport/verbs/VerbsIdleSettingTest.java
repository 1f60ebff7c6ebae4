package io.rdmakv.transport.verbs;

import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code verbs.idle}, {@code verbs.idleWaitMs} and {@code verbs.idleMaxWaitMs}: the stated defaults, and bad values
 * named in the error.
 */
class VerbsIdleSettingTest
{
    @Test
    void shouldDefaultToEventsWithATenMillisecondHousekeepingBound()
    {
        final VerbsConfig config = new VerbsConfig(TransportConfig.builder().build());
        assertEquals(VerbsConfig.IdleMode.EVENTS, config.idle);
        assertEquals(10_000_000L, config.idleWaitNs);
        assertEquals(100_000_000L, config.idleMaxWaitNs, "idle waits back off up to 100 ms");
    }

    @Test
    void shouldNeverBackOffBelowTheIdleWait()
    {
        assertEquals(250_000_000L, new VerbsConfig(TransportConfig.builder()
            .property("verbs.idleWaitMs", "250").build()).idleMaxWaitNs, "the default cap follows a longer idleWait");
        assertEquals(2_000_000_000L, new VerbsConfig(TransportConfig.builder()
            .property("verbs.idleMaxWaitMs", "2000").build()).idleMaxWaitNs);
        final TransportException below = assertThrows(TransportException.class, () -> new VerbsConfig(
            TransportConfig.builder().property("verbs.idleWaitMs", "50").property("verbs.idleMaxWaitMs", "20")
                .build()));
        assertTrue(below.getMessage().contains("verbs.idleMaxWaitMs = 20") &&
            below.getMessage().contains("verbs.idleWaitMs = 50"), below.getMessage());
    }

    @Test
    void shouldAcceptPollAndEventsInAnyCase()
    {
        assertEquals(VerbsConfig.IdleMode.POLL, idle("poll").idle);
        assertEquals(VerbsConfig.IdleMode.EVENTS, idle(" Events ").idle);
        assertEquals(250_000_000L, new VerbsConfig(TransportConfig.builder()
            .property("verbs.idleWaitMs", "250").build()).idleWaitNs);
    }

    @Test
    void shouldNameTheSettingWhenTheValueIsBad()
    {
        final TransportException mode = assertThrows(TransportException.class, () -> idle("sleep"));
        assertTrue(mode.getMessage().contains("verbs.idle = 'sleep'"), mode.getMessage());
        final TransportException wait = assertThrows(TransportException.class, () -> new VerbsConfig(
            TransportConfig.builder().property("verbs.idleWaitMs", "0").build()));
        assertTrue(wait.getMessage().contains("verbs.idleWaitMs"), wait.getMessage());
    }

    private static VerbsConfig idle(final String value)
    {
        return new VerbsConfig(TransportConfig.builder().property("verbs.idle", value).build());
    }
}
