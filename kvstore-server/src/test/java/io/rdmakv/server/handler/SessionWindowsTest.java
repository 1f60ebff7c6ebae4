package io.rdmakv.server.handler;

import io.rdmakv.protocol.auth.Role;
import io.rdmakv.protocol.auth.ScramCredential;
import io.rdmakv.protocol.auth.User;
import io.rdmakv.protocol.wire.AttachAnswer;
import io.rdmakv.protocol.wire.AttachRequestFlyweight;
import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.ResponseFlyweight;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.counters.ServerCounter;
import io.rdmakv.server.counters.ServerCounters;
import io.rdmakv.server.session.Access;
import io.rdmakv.server.session.Revocations;
import io.rdmakv.server.session.SessionTickets;
import io.rdmakv.server.session.TransportOffer;
import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.MemoryWindow;
import io.rdmakv.transport.RemoteKey;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.TransportStatus;
import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The node's per-session memory windows without a device: a window is bound when a session attaches and its key
 * answers the ATTACH (never before the bind completed); each window is closed exactly once, whether its session
 * ends, is revoked, ends while the bind is in flight or the node shuts down; a failed bind leaks nothing and the
 * session is still served (by RPC); a ticket whose user was removed is refused at the door.
 */
class SessionWindowsTest
{
    private final ServerCounters counters = new ServerCounters();
    /** The bind each endpoint asked for, completed by the test. */
    private final Map<Endpoint, CompletableFuture<MemoryWindow>> binds = new IdentityHashMap<>();
    /** ATTACH answers: endpoint, then the value (null: none). */
    private final List<Object[]> answered = new ArrayList<>();
    private final AtomicInteger wakeUps = new AtomicInteger();
    private final SessionWindows.Binder binder = new SessionWindows.Binder()
    {
        @Override
        public boolean serves(final Endpoint endpoint)
        {
            return !(endpoint instanceof SideEndpoint);
        }

        @Override
        public CompletableFuture<MemoryWindow> bind(final Endpoint endpoint)
        {
            final CompletableFuture<MemoryWindow> bind = new CompletableFuture<>();
            binds.put(endpoint, bind);
            return bind;
        }
    };
    private final SessionWindows windows = new SessionWindows(binder,
        (endpoint, correlationId, value) -> answered.add(new Object[] {endpoint, correlationId, value}), counters,
        wakeUps::incrementAndGet);

    /** A window that counts its closes. */
    private static final class Window implements MemoryWindow
    {
        final RemoteKey key;
        int closes;

        Window(final int nativeKey)
        {
            key = new RemoteKey(RemoteKey.TRANSPORT_VERBS, nativeKey, 0x1000, 4096, 0);
        }

        @Override
        public RemoteKey remoteKey()
        {
            return key;
        }

        @Override
        public CompletableFuture<Void> invalidate()
        {
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public void close()
        {
            closes++;
        }
    }

    private static class Client extends AnsweringEndpoint
    {
        final List<Status> statuses = new ArrayList<>();
        final List<byte[]> windowKeys = new ArrayList<>();

        @Override
        protected void onResponse(final ResponseFlyweight response)
        {
            statuses.add(response.status());
            windowKeys.add(response.status() == Status.OK ? AttachAnswer.windowKey(response) : null);
        }
    }

    /** An endpoint of a transport served beside the main one (tcp, shm): no window. */
    private static final class SideEndpoint extends Client
    {
    }

    @Test
    void shouldAnswerTheAttachWithTheWindowsKeyOnlyOnceItIsBoundAndCloseItOnceWhenTheSessionEnds()
    {
        final Client endpoint = new Client();
        assertTrue(windows.onAttached(endpoint, 7), "the answer waits for the bind");
        assertTrue(answered.isEmpty());
        assertFalse(windows.anyCompleted());
        assertEquals(0, windows.doWork());

        final Window window = new Window(0x1234);
        binds.get(endpoint).complete(window); // the transport's thread
        assertEquals(1, wakeUps.get(), "the request thread is woken");
        assertTrue(windows.anyCompleted());
        assertEquals(1, windows.doWork());
        assertEquals(1, answered.size());
        assertEquals(7L, answered.get(0)[1]);
        assertArrayEquals(AttachAnswer.windowKey(window.key.pack()), (byte[])answered.get(0)[2]);
        assertEquals(1, windows.boundCount());
        assertEquals(1, counters.get(ServerCounter.WINDOWS_BOUND));

        windows.onEnded(endpoint);
        assertEquals(1, window.closes);
        windows.onEnded(endpoint); // a second notice of the same end
        windows.close();
        assertEquals(1, window.closes, "closed exactly once");
        assertEquals(0, windows.boundCount());
        assertEquals(0, counters.get(ServerCounter.WINDOWS_REVOKED));
    }

    @Test
    void shouldLeaveEndpointsOfTransportsWithoutWindowsToTheUsualAnswer()
    {
        assertFalse(windows.onAttached(new SideEndpoint(), 1));
        assertTrue(binds.isEmpty());
    }

    @Test
    void shouldCloseTheWindowOfASessionThatEndedWhileItsBindWasInFlightAndAnswerNothing()
    {
        final Client endpoint = new Client();
        windows.onAttached(endpoint, 1);
        windows.onEnded(endpoint);
        final Window window = new Window(1);
        binds.get(endpoint).complete(window);
        windows.doWork();
        assertEquals(1, window.closes, "nobody holds its key: freed at once");
        assertTrue(answered.isEmpty());
        assertEquals(0, windows.boundCount());
        windows.close();
        assertEquals(1, window.closes);
    }

    @Test
    void shouldServeTheSessionWithoutAKeyWhenTheBindFailsAndLeakNothing()
    {
        final Client endpoint = new Client();
        windows.onAttached(endpoint, 3);
        binds.get(endpoint).completeExceptionally(new TransportException(TransportStatus.TRANSPORT_ERROR,
            "ibv_alloc_mw(type 2) failed", null));
        windows.doWork();
        assertEquals(1, answered.size());
        assertNull(answered.get(0)[2], "OK without a key: the client's GETs go by RPC");
        assertEquals(0, windows.boundCount());
        assertEquals(0, counters.get(ServerCounter.WINDOWS_BOUND));
        windows.onEnded(endpoint); // nothing to close, nothing thrown

        // A binder that throws instead of failing its future is a failed bind too.
        final SessionWindows throwing = new SessionWindows(new SessionWindows.Binder()
        {
            @Override
            public boolean serves(final Endpoint e)
            {
                return true;
            }

            @Override
            public CompletableFuture<MemoryWindow> bind(final Endpoint e)
            {
                throw new IllegalStateException("not connected");
            }
        }, (e, id, value) -> answered.add(new Object[] {e, id, value}), counters, () -> { });
        assertTrue(throwing.onAttached(endpoint, 4));
        throwing.doWork();
        assertEquals(2, answered.size());
        assertNull(answered.get(1)[2]);
    }

    @Test
    void shouldCloseARevokedSessionsWindowAtOnceAndCountIt()
    {
        final Client kept = new Client();
        final Client revoked = new Client();
        final Client binding = new Client();
        windows.onAttached(kept, 1);
        windows.onAttached(revoked, 2);
        windows.onAttached(binding, 3);
        final Window keptWindow = new Window(1);
        final Window revokedWindow = new Window(2);
        binds.get(kept).complete(keptWindow);
        binds.get(revoked).complete(revokedWindow);
        windows.doWork();

        assertTrue(windows.revoke(revoked));
        assertEquals(1, revokedWindow.closes);
        assertTrue(windows.revoke(binding), "a window still binding is revoked too");
        final Window late = new Window(3);
        binds.get(binding).complete(late);
        windows.doWork();
        assertEquals(1, late.closes, "closed when its bind completes, never answered");
        assertEquals(2, answered.size());
        assertEquals(2, counters.get(ServerCounter.WINDOWS_REVOKED));

        windows.onEnded(revoked); // the endpoint's close follows the revocation
        assertFalse(windows.revoke(revoked));
        assertEquals(1, revokedWindow.closes, "closed exactly once");
        assertEquals(0, keptWindow.closes, "another session's window is untouched");
        assertEquals(1, windows.boundCount());
    }

    @Test
    void shouldCloseEveryWindowAtShutdownAndOneWhoseBindCompletesAfter()
    {
        final Client bound = new Client();
        final Client binding = new Client();
        windows.onAttached(bound, 1);
        windows.onAttached(binding, 2);
        final Window first = new Window(1);
        binds.get(bound).complete(first);
        windows.doWork();
        final Window queued = new Window(9);
        final Client queuedEndpoint = new Client();
        windows.onAttached(queuedEndpoint, 3);
        binds.get(queuedEndpoint).complete(queued); // completed, not yet taken by the request thread

        windows.close();
        assertEquals(1, first.closes);
        assertEquals(1, queued.closes);
        final Window late = new Window(2);
        binds.get(binding).complete(late); // after the node closed: on the completing thread
        assertEquals(1, late.closes);
        windows.doWork();
        assertEquals(List.of(1, 1, 1), List.of(first.closes, queued.closes, late.closes), "each closed exactly once");
        assertEquals(1, answered.size(), "only the window bound before the shutdown was answered");
    }

    @Test
    void shouldSendTheKeyInTheAttachAnswerAndRefuseATicketWhoseUserWasRevoked()
    {
        final SessionTickets tickets = new SessionTickets(Duration.ofSeconds(30), 64, new SystemNanoClock());
        final EndpointAdmission admission = new EndpointAdmission(ServerConfig.defaults().admission(), 8);
        final ResponseSender responses = new ResponseSender(counters, 4096);
        final AttachDoor door = new AttachDoor(admission, tickets, counters, responses, 8);
        final SessionWindows doorWindows = new SessionWindows(binder, responses::answerAttached, counters, () -> { });
        final User alice = new User("alice", Role.READ, List.of(),
            ScramCredential.derive("pw".toCharArray(), new byte[16], 4096));
        final boolean[] aliceRemoved = {false};
        door.sessionAccess(doorWindows, new Revocations()
        {
            @Override
            public long generation()
            {
                return aliceRemoved[0] ? 1 : 0;
            }

            @Override
            public String revocation(final Access access)
            {
                return aliceRemoved[0] && access.user() != null ? "user alice was removed" : null;
            }
        });

        final Client endpoint = new Client();
        attach(door, admission, endpoint, tickets.issue(TransportOffer.NONE, Access.of(alice)));
        assertTrue(endpoint.statuses.isEmpty(), "no answer before the window is bound");
        final Window window = new Window(0xBEEF);
        binds.get(endpoint).complete(window);
        doorWindows.doWork();
        assertEquals(List.of(Status.OK), endpoint.statuses);
        assertEquals(window.key, RemoteKey.unpack(endpoint.windowKeys.get(0)));

        // A ticket issued before alice was removed from the users file is no good after.
        final byte[] ticket = tickets.issue(TransportOffer.NONE, Access.of(alice));
        aliceRemoved[0] = true;
        final Client late = new Client();
        attach(door, admission, late, ticket);
        assertEquals(List.of(Status.UNAUTHENTICATED), late.statuses);
        assertNull(binds.get(late), "no window bound for a refused session");
    }

    private static void attach(final AttachDoor door, final EndpointAdmission admission, final Endpoint endpoint,
        final byte[] ticket)
    {
        admission.onConnected(endpoint, System.nanoTime());
        final UnsafeBuffer message = new UnsafeBuffer(new byte[AttachRequestFlyweight.ENCODED_LENGTH]);
        new AttachRequestFlyweight().wrap(message, 0, message.capacity()).header(MessageType.ATTACH_REQUEST, 5)
            .ticket(ticket);
        door.onFirstMessage(endpoint, message, 0, message.capacity());
    }
}
