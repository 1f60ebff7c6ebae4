package io.rdmakv.server.session;

import io.rdmakv.protocol.wire.Welcome;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteOrder;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SessionTicketsTest
{
    private final AtomicLong now = new AtomicLong(1_000);
    private final SessionTickets tickets = new SessionTickets(Duration.ofSeconds(30), 4, now::get);

    @Test
    void shouldRedeemATicketExactlyOnce()
    {
        final byte[] ticket = tickets.issue();
        assertEquals(Welcome.SESSION_TICKET_LENGTH, ticket.length);
        assertEquals(1, tickets.outstanding());
        assertTrue(tickets.redeem(ticket));
        assertFalse(tickets.redeem(ticket), "replayed");
        assertEquals(0, tickets.outstanding());
    }

    @Test
    void shouldRedeemByTheTwoLittleEndianHalvesTheAttachFlyweightReads()
    {
        final byte[] ticket = tickets.issue();
        final UnsafeBuffer view = new UnsafeBuffer(ticket);
        assertFalse(tickets.redeem(view.getLong(8, ByteOrder.LITTLE_ENDIAN), view.getLong(0, ByteOrder.LITTLE_ENDIAN)),
            "halves swapped is another ticket");
        assertTrue(tickets.redeem(view.getLong(0, ByteOrder.LITTLE_ENDIAN), view.getLong(8, ByteOrder.LITTLE_ENDIAN)));
    }

    @Test
    void shouldRefuseUnknownWrongLengthAndExpiredTickets()
    {
        final byte[] ticket = tickets.issue();
        final byte[] forged = ticket.clone();
        forged[15] ^= 1;
        assertFalse(tickets.redeem(forged), "one bit off");
        assertFalse(tickets.redeem(new byte[15]));
        assertFalse(tickets.redeem(new byte[16]), "all zero is never issued");

        now.addAndGet(TimeUnit.SECONDS.toNanos(30));
        assertFalse(tickets.redeem(ticket), "expired after the time to live");
        final byte[] fresh = tickets.issue();
        now.addAndGet(TimeUnit.SECONDS.toNanos(30) - 1);
        assertTrue(tickets.redeem(fresh), "still valid just before the time to live");
    }

    @Test
    void shouldBoundOutstandingTicketsAndSweepExpiredOnes()
    {
        final Set<String> seen = new HashSet<>();
        for (int i = 0; i < 4; i++)
        {
            seen.add(java.util.HexFormat.of().formatHex(tickets.issue()));
        }
        assertEquals(4, seen.size(), "every ticket is fresh");
        assertNull(tickets.issue(), "at most 4 waiting");
        now.addAndGet(TimeUnit.SECONDS.toNanos(31));
        assertNotNull(tickets.issue(), "expired ones are swept to make room");
        assertEquals(1, tickets.outstanding());
    }

    @Test
    void shouldRejectNonsenseSettings()
    {
        assertThrows(IllegalArgumentException.class, () -> new SessionTickets(Duration.ZERO, 1, now::get));
        assertThrows(IllegalArgumentException.class, () -> new SessionTickets(Duration.ofSeconds(1), 0, now::get));
    }
}
