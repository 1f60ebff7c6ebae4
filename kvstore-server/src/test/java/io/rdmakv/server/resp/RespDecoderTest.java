package io.rdmakv.server.resp;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@link RespDecoder}: commands come out whole and in order however the bytes are cut, with the bounds checked at
 * each header, and the commands before a broken frame come out before its error.
 */
class RespDecoderTest
{
    private static final String PIPELINE = "*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nva\r\nl\r\n" +
        "*2\r\n$3\r\nGET\r\n$3\r\nkey\r\n" + "PING  hello\r\n" + "\r\n" + "*0\r\n" + "*1\r\n$4\r\nPING\r\n" +
        "*2\r\n$4\r\nECHO\r\n$0\r\n\r\n";
    private static final List<List<String>> COMMANDS = List.of(List.of("SET", "key", "va\r\nl"),
        List.of("GET", "key"), List.of("PING", "hello"), List.of("PING"), List.of("ECHO", ""));

    @Test
    void everyCutOfAPipelineGivesTheSameCommands()
    {
        final byte[] bytes = PIPELINE.getBytes(StandardCharsets.UTF_8);
        for (int cut = 0; cut <= bytes.length; cut++)
        {
            for (int second = cut; second <= bytes.length; second += 7)
            {
                final EmbeddedChannel ch = new EmbeddedChannel(new RespDecoder(1024, 16, 256));
                // copies: the decoder's cumulation compacts a buffer in place, which would change a wrapped array
                ch.writeInbound(Unpooled.copiedBuffer(bytes, 0, cut));
                ch.writeInbound(Unpooled.copiedBuffer(bytes, cut, second - cut));
                ch.writeInbound(Unpooled.copiedBuffer(bytes, second, bytes.length - second));
                assertEquals(COMMANDS, drain(ch), "cut at " + cut + " and " + second);
                ch.finishAndReleaseAll();
            }
        }
    }

    @Test
    void aLargeValueInOneByteReads()
    {
        final String value = "v".repeat(5000);
        final byte[] bytes = ("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5000\r\n" + value + "\r\n")
            .getBytes(StandardCharsets.UTF_8);
        final EmbeddedChannel ch = new EmbeddedChannel(new RespDecoder(5000, 16, 256));
        for (final byte b : bytes)
        {
            ch.writeInbound(Unpooled.copiedBuffer(new byte[] {b}));
        }
        assertEquals(List.of(List.of("SET", "k", value)), drain(ch));
        ch.finishAndReleaseAll();
    }

    @Test
    void boundsAndBrokenFramesWithRedisWords()
    {
        assertBroken("invalid bulk length", "*2\r\n$3\r\nGET\r\n$1025\r\n");
        assertBroken("invalid bulk length", "*2\r\n$3\r\nGET\r\n$-3\r\n");
        assertBroken("invalid multibulk length", "*17\r\n");
        assertBroken("invalid multibulk length", "*x\r\n");
        assertBroken("expected '$', got ':'", "*2\r\n$3\r\nGET\r\n:1\r\n");
        assertBroken("too big inline request", "GET " + "x".repeat(300));
        assertBroken("too big header line", "*1" + "1".repeat(40));
        assertBroken("invalid bulk format", "*1\r\n$4\r\nPINGxx");
    }

    private static void assertBroken(final String why, final String frame)
    {
        final EmbeddedChannel ch = new EmbeddedChannel(new RespDecoder(1024, 16, 256));
        final DecoderException ex = assertThrows(DecoderException.class, () -> ch.writeInbound(
            Unpooled.copiedBuffer("*1\r\n$4\r\nPING\r\n" + frame, StandardCharsets.UTF_8)), frame);
        assertInstanceOf(RespDecoder.RespProtocolException.class, ex.getCause());
        assertEquals(why, ex.getCause().getMessage(), frame);
        assertEquals(List.of(List.of("PING")), drain(ch), "the command before the broken frame came out");
        ch.writeInbound(Unpooled.copiedBuffer("*1\r\n$4\r\nPING\r\n", StandardCharsets.UTF_8));
        assertNull(ch.readInbound(), "nothing is decoded after a broken frame");
        ch.finishAndReleaseAll();
    }

    private static List<List<String>> drain(final EmbeddedChannel ch)
    {
        final List<List<String>> out = new ArrayList<>();
        byte[][] args;
        while ((args = ch.readInbound()) != null)
        {
            out.add(RespCommands.text(args));
        }
        return out;
    }
}
