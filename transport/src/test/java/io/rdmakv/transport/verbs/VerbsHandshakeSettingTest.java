package io.rdmakv.transport.verbs;

import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code verbs.handshakeTimeoutMs}: the stated default, a set value, and a bad value named in the error. */
class VerbsHandshakeSettingTest
{
    @Test
    void shouldDefaultToAFewSecondsAndTakeASetValue()
    {
        assertEquals(5_000L, new VerbsConfig(TransportConfig.builder().build()).handshakeTimeoutMs);
        assertEquals(250L, new VerbsConfig(TransportConfig.builder()
            .property("verbs.handshakeTimeoutMs", "250").build()).handshakeTimeoutMs);
    }

    @Test
    void shouldNameTheSettingWhenTheValueIsBad()
    {
        final TransportException zero = assertThrows(TransportException.class, () -> new VerbsConfig(
            TransportConfig.builder().property("verbs.handshakeTimeoutMs", "0").build()));
        assertTrue(zero.getMessage().contains("verbs.handshakeTimeoutMs = 0"), zero.getMessage());
    }
}
