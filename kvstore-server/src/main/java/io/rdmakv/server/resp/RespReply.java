package io.rdmakv.server.resp;

import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * One RESP reply, written in the protocol version the connection speaks: RESP2 by default, RESP3 after
 * {@code HELLO 3} (nulls as {@code _}, maps as {@code %}; in RESP2 a map is a flat array of keys and values and a null
 * is {@code $-1}). Netty's {@code RedisEncoder} writes RESP2 only, hence this writer.
 */
public sealed interface RespReply
{
    /** The {@code +OK} reply. */
    RespReply OK = new Simple("OK");
    /** A null: {@code $-1} (RESP2) or {@code _} (RESP3). */
    RespReply NULL = new Null();

    /** Append this reply to {@code out} in protocol {@code proto} (2 or 3). */
    void write(ByteBuf out, int proto);

    static RespReply simple(final String text)
    {
        return new Simple(text);
    }

    /** An error; {@code text} starts with its code ({@code ERR}, {@code NOAUTH}, {@code MOVED}, ...). */
    static RespReply error(final String text)
    {
        return new Error(text);
    }

    static RespReply integer(final long value)
    {
        return new Int(value);
    }

    static RespReply bulk(final byte[] value)
    {
        return value == null ? NULL : new Bulk(value);
    }

    static RespReply bulk(final String value)
    {
        return value == null ? NULL : new Bulk(value.getBytes(StandardCharsets.UTF_8));
    }

    static RespReply array(final List<RespReply> items)
    {
        return new Array(items);
    }

    /** Keys and values alternating: a RESP3 map, a flat RESP2 array. */
    static RespReply map(final List<RespReply> keysAndValues)
    {
        return new Map(keysAndValues);
    }

    /** A simple string. */
    record Simple(String text) implements RespReply
    {
        @Override
        public void write(final ByteBuf out, final int proto)
        {
            out.writeByte('+');
            out.writeCharSequence(text, StandardCharsets.UTF_8);
            crlf(out);
        }
    }

    /** An error reply. */
    record Error(String text) implements RespReply
    {
        @Override
        public void write(final ByteBuf out, final int proto)
        {
            out.writeByte('-');
            // A reply line must not break: newlines in a message would end the frame early.
            out.writeCharSequence(text.replace('\r', ' ').replace('\n', ' '), StandardCharsets.UTF_8);
            crlf(out);
        }
    }

    /** An integer. */
    record Int(long value) implements RespReply
    {
        @Override
        public void write(final ByteBuf out, final int proto)
        {
            out.writeByte(':');
            number(out, value);
        }
    }

    /** A bulk string. */
    record Bulk(byte[] value) implements RespReply
    {
        @Override
        public void write(final ByteBuf out, final int proto)
        {
            out.writeByte('$');
            number(out, value.length);
            out.writeBytes(value);
            crlf(out);
        }
    }

    /** A null. */
    record Null() implements RespReply
    {
        @Override
        public void write(final ByteBuf out, final int proto)
        {
            if (proto >= 3)
            {
                out.writeByte('_');
                crlf(out);
            }
            else
            {
                out.writeByte('$');
                number(out, -1);
            }
        }
    }

    /** An array. */
    record Array(List<RespReply> items) implements RespReply
    {
        @Override
        public void write(final ByteBuf out, final int proto)
        {
            out.writeByte('*');
            number(out, items.size());
            for (final RespReply item : items)
            {
                item.write(out, proto);
            }
        }
    }

    /** A map (keys and values alternating). */
    record Map(List<RespReply> keysAndValues) implements RespReply
    {
        @Override
        public void write(final ByteBuf out, final int proto)
        {
            if (proto >= 3)
            {
                out.writeByte('%');
                number(out, keysAndValues.size() / 2);
            }
            else
            {
                out.writeByte('*');
                number(out, keysAndValues.size());
            }
            for (final RespReply item : keysAndValues)
            {
                item.write(out, proto);
            }
        }
    }

    private static void number(final ByteBuf out, final long value)
    {
        out.writeCharSequence(Long.toString(value), StandardCharsets.US_ASCII);
        crlf(out);
    }

    private static void crlf(final ByteBuf out)
    {
        out.writeByte('\r');
        out.writeByte('\n');
    }
}
