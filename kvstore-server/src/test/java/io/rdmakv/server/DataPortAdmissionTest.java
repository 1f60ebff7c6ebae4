package io.rdmakv.server;

import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.Reject;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.protocol.wire.Welcome;
import io.rdmakv.server.counters.ServerCounter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The data port serves only endpoints that attached with the session ticket of a control-plane WELCOME: a client
 * that did not handshake (or failed the credential check) is answered UNAUTHENTICATED and disconnected, whatever it
 * sends first, and a ticket works once, for one endpoint, within its time to live.
 */
class DataPortAdmissionTest
{
    @TempDir
    Path dir;

    private static byte[] b(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static void assertRefusedAndClosed(final RawClient.Reply reply, final RawClient client) throws Exception
    {
        assertEquals(Status.UNAUTHENTICATED, reply.status(), reply.text());
        assertTrue(client.awaitClosed(10_000), "the node closes an endpoint that did not attach");
    }

    @Test
    @Timeout(60)
    void shouldRefuseAndCloseAnyRequestBeforeAttachWhileARealClientKeepsWorking() throws Exception
    {
        try (KvServer server = KvServer.start(KvServerTest.testConfig(dir, Map.of()));
             RawClient real = RawClient.attached(server))
        {
            assertEquals(Status.OK, real.put(b("k"), b("v")).status());

            try (RawClient raw = new RawClient(server.dataAddress()))
            {
                assertRefusedAndClosed(raw.put(b("k"), b("overwritten")), raw);
            }
            try (RawClient raw = new RawClient(server.dataAddress()))
            {
                assertRefusedAndClosed(raw.delete(b("k")), raw);
            }
            try (RawClient raw = new RawClient(server.dataAddress()))
            {
                final RawClient.Reply reply = raw.get(b("k"));
                assertRefusedAndClosed(reply, raw);
                assertFalse(Arrays.equals(b("v"), reply.value()), "no value for an unattached GET");
            }
            try (RawClient raw = new RawClient(server.dataAddress()))
            {
                assertRefusedAndClosed(raw.stats(), raw);
            }
            try (RawClient raw = new RawClient(server.dataAddress()))
            {
                // Pipelined behind an unattached first request: refused once, closed, none of them applied.
                final long first = raw.sendPut(b("p0"), b("x"));
                try
                {
                    for (int i = 1; i < 20; i++)
                    {
                        raw.sendPut(b("p" + i), b("x"));
                    }
                }
                catch (final AssertionError sendRefused)
                {
                    // The node may have closed the connection already: later sends are refused locally. Fine.
                }
                assertRefusedAndClosed(raw.await(first), raw);
            }
            try (RawClient raw = new RawClient(server.dataAddress()))
            {
                assertRefusedAndClosed(raw.raw(b("not a message at all")), raw);
            }

            assertArrayEquals(b("v"), real.get(b("k")).value(), "nothing an unattached client sent was applied");
            assertEquals(Status.OK, real.put(b("k2"), b("v2")).status());
            assertEquals(1, server.counters().get(ServerCounter.ATTACHES));
            assertEquals(6, server.counters().get(ServerCounter.ATTACH_REFUSALS));
            assertEquals(Status.NOT_FOUND, real.get(b("p19")).status());
            assertEquals(2, server.counters().get(ServerCounter.PUTS));
            assertEquals(0, server.counters().get(ServerCounter.DELETES));
            assertEquals(0, server.counters().get(ServerCounter.STATS_REQUESTS));
        }
    }

    @Test
    @Timeout(60)
    void shouldRefuseAWrongAReplayedAndAnExpiredTicket() throws Exception
    {
        try (KvServer server = KvServer.start(KvServerTest.testConfig(dir.resolve("a"), Map.of())))
        {
            final byte[] forged = new byte[Welcome.SESSION_TICKET_LENGTH];
            new SecureRandom().nextBytes(forged);
            try (RawClient raw = new RawClient(server.dataAddress()))
            {
                assertRefusedAndClosed(raw.attach(forged), raw);
            }
            try (RawClient raw = new RawClient(server.dataAddress()))
            {
                assertRefusedAndClosed(raw.attach(server.welcome().sessionTicket()), raw);
            }

            final Welcome welcome = (Welcome)ControlHandshake.hello(server.controlAddress(), "");
            try (RawClient first = new RawClient(server.dataAddress());
                 RawClient replay = new RawClient(server.dataAddress()))
            {
                assertEquals(Status.OK, first.attach(welcome.sessionTicket()).status());
                assertRefusedAndClosed(replay.attach(welcome.sessionTicket()), replay);
                assertEquals(Status.OK, first.put(b("k"), b("v")).status(), "the ticket's endpoint keeps working");
                assertEquals(Status.MALFORMED, first.attach(welcome.sessionTicket()).status(), "attached already");
                assertEquals(Status.OK, first.get(b("k")).status());
            }

            assertEquals(1, server.counters().get(ServerCounter.ATTACHES));
            assertEquals(3, server.counters().get(ServerCounter.ATTACH_REFUSALS));
        }
        // Its own node with a short time to live, so the first node's tickets cannot expire under a slow machine.
        // (The wait for ATTACH on a connection is auth.handshakeTimeoutMs, 5 s, from the connect, which is fresh.)
        final Map<String, String> shortTtl = Map.of("auth.ticketTtlMs", "1000");
        try (KvServer server = KvServer.start(KvServerTest.testConfig(dir.resolve("b"), shortTtl)))
        {
            final Welcome late = (Welcome)ControlHandshake.hello(server.controlAddress(), "");
            Thread.sleep(1300);
            try (RawClient raw = new RawClient(server.dataAddress()))
            {
                assertRefusedAndClosed(raw.attach(late.sessionTicket()), raw);
            }
            assertEquals(0, server.counters().get(ServerCounter.ATTACHES));
        }
    }

    @Test
    @Timeout(60)
    void shouldCloseADataConnectionThatNeverAttaches() throws Exception
    {
        try (KvServer server = KvServer.start(KvServerTest.testConfig(dir, Map.of("auth.handshakeTimeoutMs", "200")));
             RawClient silent = new RawClient(server.dataAddress()))
        {
            assertTrue(silent.awaitClosed(10_000), "a silent connection does not hold a slot for ever");
            final long deadline = System.nanoTime() + 10_000_000_000L;
            while (server.counters().get(ServerCounter.CONNECTIONS) != 0 && System.nanoTime() < deadline)
            {
                Thread.sleep(10);
            }
            assertEquals(0, server.counters().get(ServerCounter.CONNECTIONS));
            assertEquals(1, server.counters().get(ServerCounter.ATTACH_REFUSALS));
        }
    }

    @Test
    @Timeout(60)
    void shouldGuardTheDataPortWithTheCredential() throws Exception
    {
        try (KvServer server = KvServer.start(KvServerTest.testConfig(dir, Map.of("auth.secret", "s3cret"))))
        {
            final Reject reject = assertInstanceOf(Reject.class,
                ControlHandshake.hello(server.controlAddress(), "guess"));
            assertEquals(Status.UNAUTHENTICATED, reject.status());
            // What a client without the credential can still do: talk to the data port directly. It is refused.
            try (RawClient raw = new RawClient(server.dataAddress()))
            {
                assertRefusedAndClosed(raw.put(b("k"), b("mine")), raw);
            }
            try (RawClient raw = new RawClient(server.dataAddress()))
            {
                assertRefusedAndClosed(raw.keyRequest(MessageType.GET_REQUEST, b("k")), raw);
            }
            try (RawClient client = RawClient.attached(server.controlAddress(), server.dataAddress(), "s3cret"))
            {
                assertEquals(Status.NOT_FOUND, client.get(b("k")).status(), "the refused PUT was not applied");
                assertEquals(Status.OK, client.put(b("k"), b("v")).status());
            }
        }
    }
}
