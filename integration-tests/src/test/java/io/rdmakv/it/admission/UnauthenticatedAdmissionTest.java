package io.rdmakv.it.admission;

import io.rdmakv.client.KvClient;
import io.rdmakv.it.support.ControlPortWire;
import io.rdmakv.it.support.DataPortWire;
import io.rdmakv.it.support.NodeCounters;
import io.rdmakv.it.support.ProcessJanitor;
import io.rdmakv.it.support.RawConnection;
import io.rdmakv.it.support.RawConnection.Outcome;
import io.rdmakv.it.support.ServerProcess;
import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.Reject;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.protocol.wire.Welcome;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The budget of unauthenticated connections on both ports of a real server process: the oldest is shed for a
 * newcomer, one source can shed only its own, and a connection that does not authenticate is closed at the deadline.
 * Each check that a connection "is still admitted" authenticates on it (a WELCOME, an ATTACH answered OK), so no
 * test waits for something not to happen.
 */
@ExtendWith(ProcessJanitor.class)
class UnauthenticatedAdmissionTest
{
    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    private ServerProcess start(final Map<String, String> settings)
    {
        final ServerProcess.Builder b = ServerProcess.builder(dir.resolve("data")).name("admission")
            .setting("transport", "tcp");
        settings.forEach(b::setting);
        return b.start();
    }

    @Test
    @Timeout(120)
    void shouldShedTheOldestUnauthenticatedConnectionOnEachPortForANewcomer() throws Exception
    {
        // A deadline far beyond the test: every close below is a shed.
        try (ServerProcess server = start(Map.of("limits.maxUnauthenticated", "4", "auth.handshakeTimeoutMs",
            "600000")))
        {
            final List<RawConnection> control = new ArrayList<>();
            final List<RawConnection> data = new ArrayList<>();
            try
            {
                for (int i = 0; i < 5; i++)
                {
                    control.add(RawConnection.openFrom("127.0.0." + (i + 1), server.controlAddress()));
                    data.add(RawConnection.openFrom("127.0.0." + (i + 1), server.dataAddress()));
                }
                // The fifth on each port shed the first: closed, on the control port with REJECT(BUSY) first.
                assertEquals(Outcome.CLOSED, control.get(0).awaitClose(WAIT));
                assertTrue(control.get(0).discardedBytes() > 0, "a REJECT before the close");
                assertEquals(Outcome.CLOSED, data.get(0).awaitClose(WAIT));
                // The others are still admitted: each one authenticates now.
                for (int i = 1; i < 5; i++)
                {
                    control.get(i).send(ControlPortWire.hello(""));
                    final Welcome welcome = assertInstanceOf(Welcome.class,
                        ControlPortWire.answer(control.get(i), WAIT));
                    data.get(i).send(DataPortWire.request(MessageType.ATTACH_REQUEST.code(), 1,
                        welcome.sessionTicket()));
                    assertEquals(Status.OK.code(), DataPortWire.readResponse(data.get(i), WAIT).status());
                }
                final Map<String, String> node = stats(server);
                assertEquals(1, NodeCounters.get(node, "control.shed"));
                assertEquals(1, NodeCounters.get(node, "data.shed"));
            }
            finally
            {
                control.forEach(RawConnection::close);
                data.forEach(RawConnection::close);
            }
        }
    }

    @Test
    @Timeout(120)
    void shouldLetOneSourceShedOnlyItsOwnConnections() throws Exception
    {
        try (ServerProcess server = start(Map.of("limits.maxUnauthenticatedPerSource", "2",
            "auth.handshakeTimeoutMs", "600000")))
        {
            try (RawConnection other = RawConnection.openFrom("127.0.0.9", server.controlAddress());
                RawConnection otherData = RawConnection.openFrom("127.0.0.9", server.dataAddress());
                RawConnection a1 = RawConnection.openFrom("127.0.0.7", server.controlAddress());
                RawConnection a1Data = RawConnection.openFrom("127.0.0.7", server.dataAddress());
                RawConnection a2 = RawConnection.openFrom("127.0.0.7", server.controlAddress());
                RawConnection a2Data = RawConnection.openFrom("127.0.0.7", server.dataAddress());
                RawConnection a3 = RawConnection.openFrom("127.0.0.7", server.controlAddress());
                RawConnection a3Data = RawConnection.openFrom("127.0.0.7", server.dataAddress()))
            {
                // The third from 127.0.0.7 shed that address's oldest, although 127.0.0.9's connection is older.
                assertEquals(Outcome.CLOSED, a1.awaitClose(WAIT));
                assertEquals(Outcome.CLOSED, a1Data.awaitClose(WAIT));
                for (final RawConnection[] pair : new RawConnection[][]{{other, otherData}, {a2, a2Data},
                    {a3, a3Data}})
                {
                    pair[0].send(ControlPortWire.hello(""));
                    final Welcome welcome = assertInstanceOf(Welcome.class, ControlPortWire.answer(pair[0], WAIT));
                    pair[1].send(DataPortWire.request(MessageType.ATTACH_REQUEST.code(), 1, welcome.sessionTicket()));
                    assertEquals(Status.OK.code(), DataPortWire.readResponse(pair[1], WAIT).status());
                }
            }
        }
    }

    @Test
    @Timeout(120)
    void shouldCloseAConnectionThatDoesNotAuthenticateWithinTheDeadline() throws Exception
    {
        final long deadlineMillis = 400;
        try (ServerProcess server = start(Map.of("auth.handshakeTimeoutMs", Long.toString(deadlineMillis))))
        {
            final long before = System.nanoTime();
            try (RawConnection control = RawConnection.open(server.controlAddress());
                RawConnection data = RawConnection.open(server.dataAddress()))
            {
                assertEquals(Outcome.CLOSED, control.awaitClose(WAIT));
                final long controlMillis = (System.nanoTime() - before) / 1_000_000;
                assertEquals(Outcome.CLOSED, data.awaitClose(WAIT));
                // The server's clock started after ours: it cannot have closed them before the deadline.
                assertTrue(controlMillis >= deadlineMillis, "closed after " + controlMillis + " ms");
                assertTrue(control.discardedBytes() > 0, "the control connection got a REJECT first");
            }
            // Authenticating in time still works, and the counters say what happened.
            final Map<String, String> node = stats(server);
            assertEquals(1, NodeCounters.get(node, "control.handshakeTimeouts"));
            assertEquals(1, NodeCounters.get(node, "data.attachTimeouts"));
        }
    }

    @Test
    @Timeout(120)
    void shouldAnswerBusyBeyondTheAuthenticatedLimitOnEachPort() throws Exception
    {
        try (ServerProcess server = start(Map.of("limits.maxConnections", "1")))
        {
            try (RawConnection control = RawConnection.open(server.controlAddress());
                RawConnection first = RawConnection.open(server.dataAddress());
                RawConnection second = RawConnection.open(server.dataAddress()))
            {
                // One authenticated connection per plane is the limit. The welcomed control connection may ask again.
                control.send(ControlPortWire.hello(""));
                final Welcome w1 = assertInstanceOf(Welcome.class, ControlPortWire.answer(control, WAIT));
                control.send(ControlPortWire.hello(""));
                final Welcome w2 = assertInstanceOf(Welcome.class, ControlPortWire.answer(control, WAIT));
                first.send(DataPortWire.request(MessageType.ATTACH_REQUEST.code(), 1, w1.sessionTicket()));
                assertEquals(Status.OK.code(), DataPortWire.readResponse(first, WAIT).status());
                // A second ATTACH with a good ticket gets BUSY and a close.
                second.send(DataPortWire.request(MessageType.ATTACH_REQUEST.code(), 1, w2.sessionTicket()));
                assertEquals(Status.BUSY.code(), DataPortWire.readResponse(second, WAIT).status());
                assertEquals(Outcome.CLOSED, second.awaitClose(WAIT));
                // A second control connection's good HELLO gets REJECT(BUSY).
                try (RawConnection third = RawConnection.open(server.controlAddress()))
                {
                    third.send(ControlPortWire.hello(""));
                    final Reject busy = assertInstanceOf(Reject.class, ControlPortWire.answer(third, WAIT));
                    assertEquals(Status.BUSY, busy.status());
                }
                // The admitted data connection is served throughout.
                first.send(DataPortWire.request(DataPortWire.TYPE_GET, 2,
                    DataPortWire.getBody("k".getBytes(StandardCharsets.UTF_8))));
                assertEquals(Status.NOT_FOUND.code(), DataPortWire.readResponse(first, WAIT).status());
            }
        }
    }

    private static Map<String, String> stats(final ServerProcess server)
    {
        try (KvClient client = KvClient.builder().server(server.seed()).transport("tcp").requestTimeout(WAIT).build())
        {
            final byte[] v = "v".getBytes(StandardCharsets.UTF_8);
            client.put("probe".getBytes(StandardCharsets.UTF_8), v);
            assertArrayEquals(v, client.get("probe".getBytes(StandardCharsets.UTF_8)));
            return client.stats().nodes().values().iterator().next();
        }
    }
}
