package io.rdmakv.transport.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The coalesced write path on an {@link EmbeddedChannel}, whose event loop runs tasks only when told: what reaches
 * the channel (Netty writes, the buffers they carry) is counted, not timed.
 */
class TcpOutboundTest
{
    private final EmbeddedChannel channel = new EmbeddedChannel();
    private final List<Long> written = new ArrayList<>();
    private final List<Integer> anonymousWritten = new ArrayList<>();
    private final TcpOutbound outbound = new TcpOutbound(channel, (id, success) ->
    {
        assertTrue(success);
        written.add(id);
    }, anonymousWritten::add);

    @AfterEach
    void releaseWhatWasWritten()
    {
        channel.finishAndReleaseAll();
    }

    @Test
    void shouldFrameABatchOfMessagesIntoOneBufferWrittenOnce()
    {
        for (int i = 0; i < 16; i++)
        {
            final boolean first = outbound.addMessage(payload("get-" + i), 0, ("get-" + i).length(),
                TcpOutbound.ANONYMOUS_SEND);
            assertEquals(i == 0, first); // only the first of a batch schedules the write task
        }
        outbound.schedule();
        channel.runPendingTasks();

        assertEquals(1, channel.outboundMessages().size()); // one Netty write (and one buffer) for 16 messages
        final List<String> frames = frames(channel.readOutbound());
        assertEquals(16, frames.size());
        for (int i = 0; i < 16; i++)
        {
            assertEquals("get-" + i, frames.get(i));
        }
        assertEquals(List.of(16), anonymousWritten); // every credit back with the batch
    }

    @Test
    void shouldKeepPostingOrderAcrossOwnFramesAndMessages()
    {
        outbound.addMessage(payload("a"), 0, 1, TcpOutbound.ANONYMOUS_SEND);
        final ByteBuf own = TcpFrames.messageFrame(channel.alloc(), 1);
        own.writeByte('b');
        outbound.add(own, TcpOutbound.ANONYMOUS_SEND);
        outbound.addMessage(payload("c"), 0, 1, TcpOutbound.ANONYMOUS_SEND);
        outbound.schedule();
        channel.runPendingTasks();

        // c must not join a's buffer, which would put it before b.
        assertEquals(3, channel.outboundMessages().size());
        final List<String> frames = new ArrayList<>();
        ByteBuf buf;
        while ((buf = channel.readOutbound()) != null)
        {
            frames.addAll(frames(buf));
        }
        assertEquals(List.of("a", "b", "c"), frames);
    }

    @Test
    void shouldOpenANewBufferWhenTheOpenOneIsFullAndSizeALargeMessagesBufferToIt()
    {
        final int small = 1000;
        final int perBuffer = TcpOutbound.BATCH_BUFFER_BYTES / (TcpFrames.MESSAGE_OVERHEAD + small);
        final List<String> expected = new ArrayList<>();
        for (int i = 0; i <= perBuffer; i++)
        {
            final String text = String.format("%0" + small + "d", i);
            outbound.addMessage(payload(text), 0, small, 10 + i);
            expected.add(text);
        }
        final String large = "x".repeat(3 * TcpOutbound.BATCH_BUFFER_BYTES);
        outbound.addMessage(payload(large), 0, large.length(), TcpOutbound.ANONYMOUS_SEND);
        expected.add(large);
        outbound.schedule();
        channel.runPendingTasks();

        assertEquals(3, channel.outboundMessages().size()); // full buffer, the one that overflowed, the large one
        final List<String> frames = new ArrayList<>();
        ByteBuf buf;
        while ((buf = channel.readOutbound()) != null)
        {
            frames.addAll(frames(buf));
        }
        assertEquals(expected, frames);
        final List<Long> ids = new ArrayList<>();
        for (int i = 0; i <= perBuffer; i++)
        {
            ids.add(10L + i);
        }
        assertEquals(ids, written); // tracked sends complete in posting order once their batch is written
        assertEquals(List.of(1), anonymousWritten);
    }

    @Test
    void shouldStartANewBatchAfterTheWriteTaskRan()
    {
        assertTrue(outbound.addMessage(payload("one"), 0, 3, TcpOutbound.ANONYMOUS_SEND));
        outbound.schedule();
        channel.runPendingTasks();
        assertTrue(outbound.addMessage(payload("two"), 0, 3, TcpOutbound.ANONYMOUS_SEND));
        outbound.schedule();
        channel.runPendingTasks();

        assertEquals(2, channel.outboundMessages().size()); // the written buffer is never appended to again
        assertEquals(List.of("one"), frames(channel.readOutbound()));
        assertEquals(List.of("two"), frames(channel.readOutbound()));
        assertEquals(List.of(1, 1), anonymousWritten);
    }

    private static UnsafeBuffer payload(final String text)
    {
        return new UnsafeBuffer(text.getBytes(StandardCharsets.US_ASCII));
    }

    /** The MESSAGE frames in {@code buf}, as text; releases it. */
    private static List<String> frames(final ByteBuf buf)
    {
        final List<String> out = new ArrayList<>();
        try
        {
            while (buf.isReadable())
            {
                final int length = buf.readInt();
                assertEquals(TcpFrames.TYPE_MESSAGE, buf.readByte());
                final byte[] body = new byte[length - TcpFrames.TYPE_LENGTH];
                buf.readBytes(body);
                out.add(new String(body, StandardCharsets.US_ASCII));
            }
        }
        finally
        {
            buf.release();
        }
        return out;
    }
}
