package io.rdmakv.server.session;

import io.rdmakv.protocol.wire.Welcome;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteOrder;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The tickets handed out in WELCOMEs and not redeemed yet. A ticket is {@link Welcome#SESSION_TICKET_LENGTH} bytes
 * from {@link SecureRandom} (128 bits: neither guessable nor colliding), redeemable <b>once</b> and only within the
 * time to live after it was issued, so a ticket seen on the wire cannot be replayed and an unused one does not stay
 * valid. Expired tickets are swept when new ones are issued, and at most {@code maxOutstanding} wait at once (a
 * client that handshakes in a loop cannot grow the table without bound).
 *
 * <pre>
 *   control plane (Netty event loop)        request handler (progress thread)
 *   HELLO ok -> issue() -> WELCOME{ticket}   ATTACH{ticket} -> redeem(high, low) -> true: serve the endpoint
 *                                                                                false: UNAUTHENTICATED + close
 * </pre>
 *
 * <p>Thread-safe: issued on the control plane's event loop, redeemed on the request thread. Redeeming is the control
 * path of a connection (once per endpoint), not the request path.
 */
public final class SessionTickets
{
    private final SecureRandom random = new SecureRandom();
    private final ConcurrentHashMap<Ticket, Issued> issued = new ConcurrentHashMap<>();
    private final long ttlNanos;
    private final int maxOutstanding;
    private final NanoClock clock;

    /**
     * @param ttl            how long an issued ticket may wait for its ATTACH.
     * @param maxOutstanding unredeemed, unexpired tickets at most; {@link #issue()} refuses beyond.
     * @param clock          time source (a test can move it).
     */
    public SessionTickets(final Duration ttl, final int maxOutstanding, final NanoClock clock)
    {
        if (ttl.isNegative() || ttl.isZero())
        {
            throw new IllegalArgumentException("ticket time to live must be positive: " + ttl);
        }
        if (maxOutstanding < 1)
        {
            throw new IllegalArgumentException("maxOutstanding must be at least 1: " + maxOutstanding);
        }
        this.ttlNanos = ttl.toNanos();
        this.maxOutstanding = maxOutstanding;
        this.clock = clock;
    }

    /**
     * A fresh ticket, valid for one ATTACH within the time to live.
     *
     * @return the ticket's bytes, or {@code null} when {@code maxOutstanding} unexpired tickets are waiting.
     */
    public byte[] issue()
    {
        return issue(TransportOffer.NONE);
    }

    /**
     * A fresh ticket that carries what the handshake offered to its ATTACH (for the node's log line).
     *
     * @param offer what the client's HELLO and the node's WELCOME offered, returned by {@link #redeemOffer}.
     * @return the ticket's bytes, or {@code null} when {@code maxOutstanding} unexpired tickets are waiting.
     */
    public byte[] issue(final TransportOffer offer)
    {
        return issue(offer, Access.OPEN);
    }

    /**
     * A fresh ticket that carries what the handshake offered and what its session may do to the endpoint it
     * attaches.
     *
     * @param offer  what the client's HELLO and the node's WELCOME offered.
     * @param access what the handshake authenticated: every request on the attached endpoint is checked against it.
     * @return the ticket's bytes, or {@code null} when {@code maxOutstanding} unexpired tickets are waiting.
     */
    public byte[] issue(final TransportOffer offer, final Access access)
    {
        final long now = clock.nanoTime();
        if (issued.size() >= maxOutstanding)
        {
            issued.values().removeIf(i -> now - i.atNanos >= ttlNanos);
            if (issued.size() >= maxOutstanding)
            {
                return null;
            }
        }
        final byte[] bytes = new byte[Welcome.SESSION_TICKET_LENGTH];
        Ticket ticket;
        do
        {
            random.nextBytes(bytes);
            ticket = Ticket.of(bytes);
        }
        // All zero is what an unset ticket looks like; a collision would make two clients share one. Both ~2^-128.
        while ((ticket.high == 0 && ticket.low == 0) || issued.putIfAbsent(ticket, new Issued(now, offer, access)) != null);
        return bytes;
    }

    /**
     * Redeem a ticket, read as two little-endian longs (as {@code AttachRequestFlyweight} reads it): true exactly once
     * for an issued ticket within its time to live; false for an unknown, used or expired one.
     */
    public boolean redeem(final long high, final long low)
    {
        return redeemOffer(high, low) != null;
    }

    /**
     * As {@link #redeem(long, long)}, returning what the ticket's handshake offered.
     *
     * @param high the ticket's first 8 bytes, little-endian.
     * @param low  its last 8 bytes.
     * @return the offer given to {@link #issue(TransportOffer)} when the ticket was redeemed now; {@code null}
     *         otherwise.
     */
    public TransportOffer redeemOffer(final long high, final long low)
    {
        final Session session = redeemSession(high, low);
        return session == null ? null : session.offer();
    }

    /**
     * As {@link #redeem(long, long)}, returning what the ticket's handshake offered and authenticated.
     *
     * @return the ticket's session when it was redeemed now; {@code null} otherwise.
     */
    public Session redeemSession(final long high, final long low)
    {
        final Issued issuedAt = issued.remove(new Ticket(high, low));
        return issuedAt != null && clock.nanoTime() - issuedAt.atNanos < ttlNanos ?
            new Session(issuedAt.offer, issuedAt.access) : null;
    }

    /**
     * What a redeemed ticket carried.
     *
     * @param offer  what the handshake offered.
     * @param access what its session may do.
     */
    public record Session(TransportOffer offer, Access access)
    {
    }

    /** {@link #redeem(long, long)} of a ticket's bytes (any length other than the ticket's is never valid). */
    public boolean redeem(final byte[] ticket)
    {
        if (ticket.length != Welcome.SESSION_TICKET_LENGTH)
        {
            return false;
        }
        final Ticket t = Ticket.of(ticket);
        return redeem(t.high, t.low);
    }

    /** Tickets issued and neither redeemed nor swept (expired ones count until a sweep). */
    public int outstanding()
    {
        return issued.size();
    }

    /** The time a ticket stays valid. */
    public Duration timeToLive()
    {
        return Duration.ofNanos(ttlNanos);
    }

    private record Issued(long atNanos, TransportOffer offer, Access access)
    {
    }

    private record Ticket(long high, long low)
    {
        static Ticket of(final byte[] bytes)
        {
            final UnsafeBuffer view = new UnsafeBuffer(bytes);
            return new Ticket(view.getLong(0, ByteOrder.LITTLE_ENDIAN), view.getLong(8, ByteOrder.LITTLE_ENDIAN));
        }
    }
}
