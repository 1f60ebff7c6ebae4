package io.rdmakv.server.handler;

import io.rdmakv.protocol.ProtocolException;
import io.rdmakv.protocol.wire.AttachRequestFlyweight;
import io.rdmakv.protocol.wire.MessageDecoder;
import io.rdmakv.protocol.wire.MessageHeaderFlyweight;
import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.counters.ServerCounter;
import io.rdmakv.server.counters.ServerCounters;
import io.rdmakv.server.session.Revocations;
import io.rdmakv.server.session.SessionTickets;
import io.rdmakv.server.session.TransportOffer;
import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.Transport;
import io.rdmakv.transport.TransportCapability;
import io.rdmakv.transport.log.RateLimitedLog;
import org.agrona.DirectBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The data port's door: a new endpoint's first message must be an ATTACH whose session ticket redeems, and the
 * endpoint must fit the node's connection limit (a client's caller lane only below three quarters of it). Owned by
 * the {@link RequestHandler}, on its thread; once per connection, so it may allocate.
 */
final class AttachDoor
{
    /** The handler's logger: these lines are the data port's, as they were before the door was its own class. */
    private static final Logger LOG = LoggerFactory.getLogger(RequestHandler.class);
    private static final RateLimitedLog REFUSAL_LOG = RateLimitedLog.of(LOG);
    private static final RateLimitedLog BUSY_LOG = RateLimitedLog.of(LOG);
    private static final long SUMMARY_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);
    /** The reasons are a handful of sentences per transport; a bound keeps a node of many fleets from growing it. */
    private static final int MAX_REASONS_KEPT = 64;

    private final EndpointAdmission admission;
    private final SessionTickets tickets;
    private final ServerCounters counters;
    private final ResponseSender responses;
    private final int maxConnections;
    private final MessageDecoder decoder = new MessageDecoder();
    /** Transports and reasons clients attached with already (the first of each is logged at INFO, the rest at DEBUG). */
    private final Set<String> firstOver = new HashSet<>();
    private long attachesSinceSummary;
    private long lastSummaryNanos = System.nanoTime();
    /** Binds each attached session's memory window (and answers its ATTACH then), where the transport has them. */
    private SessionWindows windows;
    private Revocations revocations = Revocations.NONE;

    AttachDoor(final EndpointAdmission admission, final SessionTickets tickets, final ServerCounters counters,
        final ResponseSender responses, final int maxConnections)
    {
        this.admission = admission;
        this.tickets = tickets;
        this.counters = counters;
        this.responses = responses;
        this.maxConnections = maxConnections;
        this.windows = new SessionWindows(SessionWindows.NO_WINDOWS, responses::answerAttached, counters, () -> { });
    }

    /** The node's memory windows and revocations (set once, before the request thread starts). */
    void sessionAccess(final SessionWindows windows, final Revocations revocations)
    {
        this.windows = windows;
        this.revocations = revocations;
    }

    /**
     * Once a minute at most, when clients attached since the last one: one INFO line with how many, instead of a line
     * per connection (a client opens one per node and one per caller lane). Request thread, from its duty cycle.
     */
    void summarize(final long nowNanos, final int attachedNow)
    {
        if (attachesSinceSummary > 0 && nowNanos - lastSummaryNanos >= SUMMARY_INTERVAL_NANOS)
        {
            LOG.info("{} data connections attached in the last {} s; {} attached now", attachesSinceSummary,
                TimeUnit.NANOSECONDS.toSeconds(nowNanos - lastSummaryNanos), attachedNow);
            attachesSinceSummary = 0;
            lastSummaryNanos = nowNanos;
        }
    }

    /** Whether {@link #summarize} has something to say (a field read, for the duty cycle). */
    boolean attachedSinceSummary()
    {
        return attachesSinceSummary > 0;
    }

    /**
     * The first message on an endpoint must be an ATTACH with a ticket that redeems. Whatever else arrives (a request,
     * garbage, a wrong, used or expired ticket) gets UNAUTHENTICATED, the same answer for all so nothing is learned,
     * and the endpoint is closed. Once per connection: may allocate.
     */
    void onFirstMessage(final Endpoint endpoint, final DirectBuffer buffer, final int offset, final int length)
    {
        if (!admission.isWaiting(endpoint))
        {
            return; // refused and closed already (or never admitted): what it pipelined behind gets nothing
        }
        MessageType type = null;
        try
        {
            type = decoder.decode(buffer, offset, length);
        }
        catch (final ProtocolException ex)
        {
            // Not even a well-formed ATTACH: refused below.
        }
        if (type == MessageType.ATTACH_REQUEST)
        {
            final AttachRequestFlyweight attach = decoder.attachRequest();
            final SessionTickets.Session redeemed = tickets.redeemSession(attach.ticketHigh(), attach.ticketLow());
            // A ticket issued before its user was removed or changed in the users file is no good either.
            final SessionTickets.Session session = redeemed == null ||
                revocations.revocation(redeemed.access()) != null ? null : redeemed;
            if (session != null)
            {
                final TransportOffer offered = session.offer();
                final boolean lane = (attach.flags() & MessageHeaderFlyweight.FLAG_LANE) != 0;
                final int admitted = admission.attach(endpoint, lane, session.access());
                if (admitted == EndpointAdmission.ATTACHED)
                {
                    counters.increment(ServerCounter.ATTACHES);
                    attachesSinceSummary++;
                    if (offered != TransportOffer.NONE)
                    {
                        final Transport transport = endpoint.worker().transport();
                        final String why = offered.explain(transport.name(),
                            transport.capabilities().has(TransportCapability.HOST_LOCAL));
                        if (firstOver.size() < MAX_REASONS_KEPT && firstOver.add(transport.name() + ": " + why))
                        {
                            LOG.info("client {} attached over {}: {} (the first for this reason; the next at DEBUG, " +
                                "counted in a line a minute)", endpoint.remoteAddress(), transport.name(), why);
                        }
                        else
                        {
                            LOG.debug("client {} attached over {}: {}", endpoint.remoteAddress(), transport.name(), why);
                        }
                    }
                    if (!windows.onAttached(endpoint, decoder.correlationId()))
                    {
                        responses.answer(endpoint, decoder.correlationId(), Status.OK, 0, 0);
                    }
                    return;
                }
                if (admitted == EndpointAdmission.FULL)
                {
                    counters.increment(ServerCounter.CONNECTIONS_REFUSED);
                    counters.decrement(ServerCounter.CONNECTIONS);
                    if (lane)
                    {
                        // Normal under load: the client keeps its first connection and goes without this lane.
                        LOG.debug("refusing a caller lane from {}: three quarters of the limit of {} reached",
                            endpoint.remoteAddress(), maxConnections);
                    }
                    else
                    {
                        BUSY_LOG.warn("refusing data connection from {}: limit of {} attached connections reached",
                            endpoint.remoteAddress(), maxConnections);
                    }
                    responses.answerError(endpoint, decoder.correlationId(), Status.BUSY,
                        "too many data connections (limit " + maxConnections + (lane ?
                        ", a caller lane only below three quarters of it" : "") + "); retry later");
                    endpoint.close();
                    return;
                }
            }
        }
        counters.increment(ServerCounter.ATTACH_REFUSALS);
        REFUSAL_LOG.info("refusing data connection from {}: {}", endpoint.remoteAddress(),
            type == MessageType.ATTACH_REQUEST ? "session ticket unknown, used or expired" :
            "first message is not an ATTACH");
        responses.answerError(endpoint, decoder.correlationId(), Status.UNAUTHENTICATED,
            "attach with a valid session ticket from the control-plane handshake first");
        if (admission.onDisconnected(endpoint))
        {
            counters.decrement(ServerCounter.CONNECTIONS);
        }
        endpoint.close();
    }
}
