package io.rdmakv.server.handler;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.rdmakv.protocol.wire.AttachRequestFlyweight;
import io.rdmakv.protocol.wire.MessageHeaderFlyweight;
import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.ResponseFlyweight;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.counters.ServerCounters;
import io.rdmakv.server.session.SessionTickets;
import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The data port's door: attaches are counted into one INFO line a minute, not a line each; a caller lane is admitted
 * only below three quarters of the connection limit while a client's first connection may take the rest.
 */
class AttachDoorTest
{
    private final List<Status> answers = new ArrayList<>();

    private final class Recording extends AnsweringEndpoint
    {
        @Override
        protected void onResponse(final ResponseFlyweight response)
        {
            answers.add(response.status());
        }
    }

    @Test
    void shouldSummarizeAttachesOnceAMinuteAndKeepTheLastQuarterForFirstConnections()
    {
        final SessionTickets tickets = new SessionTickets(Duration.ofSeconds(30), 64, new SystemNanoClock());
        final ServerCounters counters = new ServerCounters();
        final EndpointAdmission admission = new EndpointAdmission(ServerConfig.defaults().admission(), 8);
        final AttachDoor door = new AttachDoor(admission, tickets, counters, new ResponseSender(counters, 4096), 8);
        final Logger log = (Logger)LoggerFactory.getLogger(RequestHandler.class);
        final ListAppender<ILoggingEvent> lines = new ListAppender<>();
        lines.start();
        log.addAppender(lines);
        final Level before = log.getLevel();
        log.setLevel(Level.INFO);
        try
        {
            final long start = System.nanoTime();
            for (int i = 0; i < 6; i++)
            {
                attach(door, admission, tickets, true);  // lanes: 6 of 8 is three quarters
            }
            attach(door, admission, tickets, true);      // the seventh lane is refused
            attach(door, admission, tickets, false);     // a first connection still gets in
            assertEquals(List.of(Status.OK, Status.OK, Status.OK, Status.OK, Status.OK, Status.OK, Status.BUSY,
                Status.OK), answers);
            assertTrue(door.attachedSinceSummary());
            door.summarize(start + TimeUnit.SECONDS.toNanos(30), admission.attachedCount());
            assertEquals(0, infoLines(lines), "not before a minute");
            door.summarize(start + TimeUnit.SECONDS.toNanos(61), admission.attachedCount());
            assertEquals(1, infoLines(lines));
            final String line = lines.list.get(lines.list.size() - 1).getFormattedMessage();
            assertTrue(line.startsWith("7 data connections attached in the last") && line.endsWith("7 attached now"),
                line);
            door.summarize(start + TimeUnit.SECONDS.toNanos(200), admission.attachedCount());
            assertEquals(1, infoLines(lines), "nothing new: no line");
        }
        finally
        {
            log.detachAppender(lines);
            log.setLevel(before);
        }
    }

    private void attach(final AttachDoor door, final EndpointAdmission admission, final SessionTickets tickets,
        final boolean lane)
    {
        final Recording endpoint = new Recording();
        admission.onConnected(endpoint, System.nanoTime());
        final UnsafeBuffer message = new UnsafeBuffer(new byte[AttachRequestFlyweight.ENCODED_LENGTH]);
        final AttachRequestFlyweight attach = new AttachRequestFlyweight().wrap(message, 0, message.capacity())
            .header(MessageType.ATTACH_REQUEST, 0).ticket(tickets.issue());
        if (lane)
        {
            attach.flags(attach.flags() | MessageHeaderFlyweight.FLAG_LANE);
        }
        door.onFirstMessage(endpoint, message, 0, message.capacity());
    }

    private static long infoLines(final ListAppender<ILoggingEvent> lines)
    {
        return lines.list.stream().filter(e -> e.getLevel() == Level.INFO).count();
    }
}
