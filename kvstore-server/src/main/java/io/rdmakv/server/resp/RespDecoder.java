package io.rdmakv.server.resp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.ByteProcessor;

import java.util.ArrayList;
import java.util.List;

/**
 * Decodes RESP commands straight out of the connection's read buffer into their arguments ({@code byte[][]}, the
 * command name first): an array of bulk strings ({@code *N\r\n$L\r\n...}, what every client sends) or an inline command
 * (a line of words, what {@code telnet} sends). One array of arguments per command and one {@code byte[]} per argument
 * are the only objects it makes: no message objects, no aggregation buffers. Progress within a command is kept (the
 * arguments read so far), so a large value arriving in many reads is not parsed again.
 *
 * <p>Bounds, checked at each header before anything is buffered or allocated for it, with Redis's words: a bulk
 * string longer than {@code maxBulkBytes} ({@code invalid bulk length}), an array of more than {@code maxArguments}
 * elements ({@code invalid multibulk length}), an inline line longer than {@code maxInlineBytes} ({@code too big
 * inline request}), an element that is not a bulk string ({@code expected '$', got 'c'}). Each is thrown as a
 * {@link RespProtocolException} after the commands before it were passed on; nothing after it is decoded.
 */
final class RespDecoder extends ByteToMessageDecoder
{
    /** The longest header line ({@code *N} or {@code $L}, a 64-bit number and a sign); a longer one is broken. */
    private static final int MAX_HEADER = 24;

    private final long maxBulkBytes;
    private final long maxArguments;
    private final int maxInlineBytes;
    /** The command being read: its arguments so far, or null between commands. */
    private byte[][] args;
    private int argIndex;
    private boolean broken;

    RespDecoder(final long maxBulkBytes, final long maxArguments, final int maxInlineBytes)
    {
        this.maxBulkBytes = maxBulkBytes;
        this.maxArguments = maxArguments;
        this.maxInlineBytes = maxInlineBytes;
    }

    @Override
    protected void decode(final ChannelHandlerContext ctx, final ByteBuf in, final List<Object> out)
    {
        if (broken)
        {
            in.skipBytes(in.readableBytes());
            return;
        }
        try
        {
            while (in.isReadable())
            {
                final byte[][] command = args != null || in.getByte(in.readerIndex()) == '*' ? array(in) : inline(in);
                if (command == null)
                {
                    return; // more bytes needed
                }
                if (command.length > 0)
                {
                    out.add(command);
                }
            }
        }
        catch (final RespProtocolException ex)
        {
            broken = true;
            in.skipBytes(in.readableBytes());
            throw ex;
        }
    }

    /** An array command, or null when incomplete (the arguments read so far are kept); an empty array for {@code *0}. */
    private byte[][] array(final ByteBuf in)
    {
        if (args == null)
        {
            final long n = header(in, '*', "invalid multibulk length");
            if (n == Long.MIN_VALUE)
            {
                return null;
            }
            if (n > maxArguments)
            {
                throw new RespProtocolException("invalid multibulk length");
            }
            if (n <= 0)
            {
                return EMPTY; // *0 and *-1: nothing to do, as Redis
            }
            args = new byte[(int)n][];
            argIndex = 0;
        }
        while (argIndex < args.length)
        {
            if (!in.isReadable())
            {
                return null;
            }
            final int start = in.readerIndex();
            final byte type = in.getByte(start);
            if (type != '$')
            {
                throw new RespProtocolException("expected '$', got '" + printable(type) + "'");
            }
            final int lineEnd = lineEnd(in, start, MAX_HEADER);
            if (lineEnd < 0)
            {
                return null;
            }
            final long length = number(in, start + 1, lineEnd, "invalid bulk length");
            if (length < 0 || length > maxBulkBytes)
            {
                throw new RespProtocolException("invalid bulk length");
            }
            final int body = lineEnd + 2;
            if (in.writerIndex() - body < length + 2)
            {
                return null; // the header is read again with the body: nothing of it is kept
            }
            final byte[] arg = new byte[(int)length];
            in.getBytes(body, arg);
            final int end = body + (int)length;
            if (in.getByte(end) != '\r' || in.getByte(end + 1) != '\n')
            {
                throw new RespProtocolException("invalid bulk format");
            }
            in.readerIndex(end + 2);
            args[argIndex++] = arg;
        }
        final byte[][] command = args;
        args = null;
        return command;
    }

    /** {@code <type>N\r\n}: N, or Long.MIN_VALUE when the line is not complete yet (nothing is consumed then). */
    private static long header(final ByteBuf in, final char type, final String broken)
    {
        final int start = in.readerIndex();
        final int lineEnd = lineEnd(in, start, MAX_HEADER);
        if (lineEnd < 0)
        {
            return Long.MIN_VALUE;
        }
        final long n = number(in, start + 1, lineEnd, broken);
        in.readerIndex(lineEnd + 2);
        return n;
    }

    /**
     * The index of the {@code \r} of {@code \r\n} ending the line at {@code start}, or -1 when it has not arrived; a
     * line longer than {@code max} without one is broken.
     */
    private static int lineEnd(final ByteBuf in, final int start, final int max)
    {
        final int limit = Math.min(in.writerIndex(), start + max + 2);
        final int lf = in.forEachByte(start, limit - start, ByteProcessor.FIND_LF);
        if (lf < 0)
        {
            if (limit - start >= max + 2)
            {
                throw new RespProtocolException("too big header line");
            }
            return -1;
        }
        if (lf == start || in.getByte(lf - 1) != '\r')
        {
            throw new RespProtocolException("expected '\\r', got '" + printable(in.getByte(Math.max(start, lf - 1))) +
                "'");
        }
        return lf - 1;
    }

    /** The decimal number in {@code [from, to)}, sign allowed. */
    private static long number(final ByteBuf in, final int from, final int to, final String broken)
    {
        if (from >= to)
        {
            throw new RespProtocolException(broken);
        }
        int i = from;
        final boolean negative = in.getByte(i) == '-';
        if (negative)
        {
            i++;
        }
        if (i >= to)
        {
            throw new RespProtocolException(broken);
        }
        long n = 0;
        for (; i < to; i++)
        {
            final byte b = in.getByte(i);
            if (b < '0' || b > '9')
            {
                throw new RespProtocolException(broken);
            }
            n = n * 10 + (b - '0');
        }
        return negative ? -n : n;
    }

    /** An inline command: the words of one line; an empty array for a blank line; null when the line is incomplete. */
    private byte[][] inline(final ByteBuf in)
    {
        final int start = in.readerIndex();
        final int readable = in.writerIndex() - start;
        final int lf = in.forEachByte(start, Math.min(readable, maxInlineBytes + 2), ByteProcessor.FIND_LF);
        if (lf < 0)
        {
            if (readable > maxInlineBytes)
            {
                throw new RespProtocolException("too big inline request");
            }
            return null;
        }
        final int end = lf > start && in.getByte(lf - 1) == '\r' ? lf - 1 : lf;
        if (end - start > maxInlineBytes)
        {
            throw new RespProtocolException("too big inline request");
        }
        final List<byte[]> words = new ArrayList<>();
        int i = start;
        while (i < end)
        {
            while (i < end && isSpace(in.getByte(i)))
            {
                i++;
            }
            final int wordStart = i;
            while (i < end && !isSpace(in.getByte(i)))
            {
                i++;
            }
            if (i > wordStart)
            {
                final byte[] word = new byte[i - wordStart];
                in.getBytes(wordStart, word);
                words.add(word);
            }
        }
        in.readerIndex(lf + 1);
        return words.toArray(new byte[0][]);
    }

    private static boolean isSpace(final byte b)
    {
        return b == ' ' || b == '\t' || b == '\r' || b == '\n';
    }

    private static String printable(final byte b)
    {
        return b >= ' ' && b <= '~' ? String.valueOf((char)b) : String.format("\\x%02x", b & 0xff);
    }

    private static final byte[][] EMPTY = new byte[0][];

    /** A frame the listener will not read on: the connection gets {@code -ERR Protocol error: ...} and is closed. */
    static final class RespProtocolException extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        RespProtocolException(final String message)
        {
            super(message, null, false, false);
        }
    }
}
