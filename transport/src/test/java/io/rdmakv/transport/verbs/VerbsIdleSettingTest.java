package io.rdmakv.transport.verbs;

import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code verbs.idle} and {@code verbs.idleWaitMs}: the stated defaults, and bad values named in the error. */
class VerbsIdleSettingTest
{
    @Test
    void shouldDefaultToEventsWithATenMillisecondHousekeepingBound()
    {
        final VerbsConfig config = new VerbsConfig(TransportConfig.builder().build());
        assertEquals(VerbsConfig.IdleMode.EVENTS, config.idle);
        assertEquals(10_000_000L, config.idleWaitNs);
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
