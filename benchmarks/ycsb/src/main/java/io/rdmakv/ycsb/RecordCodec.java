package io.rdmakv.ycsb;

import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * A YCSB record (its field map) as ONE value, the same bytes in every binding of this module, so rdmakv and redis
 * store, move and parse exactly the same thing:
 *
 * <pre>
 *   count        u16   number of fields (0..65,535)
 *   count times:
 *     nameLength u16   bytes of the field's name
 *     name       bytes UTF-8
 *     valueLength u32  bytes of the field's value (0..2^31-1)
 *     value      bytes as YCSB generated them
 * </pre>
 *
 * All integers big-endian. Six bytes of framing per field: a record of 10 fields x 100 B with YCSB's names
 * ({@code field0}..{@code field9}) is 2 + 10 x (2 + 6 + 4 + 100) = 1,122 bytes. Field names are unique in a record:
 * encoding a map cannot repeat one, and decoding refuses a record that does.
 */
public final class RecordCodec
{
    private static final int MAX_FIELDS = 0xFFFF;
    private static final int MAX_NAME_BYTES = 0xFFFF;

    private RecordCodec()
    {
    }

    /**
     * Encode a record.
     *
     * @param fields the fields (name to value), in the order they are to be written; each value's iterator is read
     *               to its end.
     * @return the record's bytes.
     * @throws IllegalArgumentException when there are more than 65,535 fields or a name is longer than 65,535 bytes.
     */
    public static byte[] encode(final Map<String, ByteIterator> fields)
    {
        final Map<String, byte[]> raw = new LinkedHashMap<>(fields.size() * 2);
        for (final Map.Entry<String, ByteIterator> e : fields.entrySet())
        {
            raw.put(e.getKey(), e.getValue().toArray());
        }
        return encodeBytes(raw);
    }

    /**
     * Encode a record whose values are already bytes.
     *
     * @param fields the fields (name to value).
     * @return the record's bytes.
     * @throws IllegalArgumentException when there are more than 65,535 fields or a name is longer than 65,535 bytes.
     */
    public static byte[] encodeBytes(final Map<String, byte[]> fields)
    {
        if (fields.size() > MAX_FIELDS)
        {
            throw new IllegalArgumentException("a record holds at most " + MAX_FIELDS + " fields, not " + fields.size());
        }
        final byte[][] names = new byte[fields.size()][];
        long size = 2;
        int i = 0;
        for (final Map.Entry<String, byte[]> e : fields.entrySet())
        {
            final byte[] name = e.getKey().getBytes(StandardCharsets.UTF_8);
            if (name.length > MAX_NAME_BYTES)
            {
                throw new IllegalArgumentException("field name of " + name.length + " bytes; at most " + MAX_NAME_BYTES);
            }
            names[i++] = name;
            size += 2 + name.length + 4 + e.getValue().length;
        }
        if (size > Integer.MAX_VALUE - 8)
        {
            throw new IllegalArgumentException("record of " + size + " bytes is too large for one value");
        }
        final ByteBuffer out = ByteBuffer.allocate((int) size);
        out.putShort((short) fields.size());
        i = 0;
        for (final byte[] value : fields.values())
        {
            out.putShort((short) names[i].length).put(names[i]);
            out.putInt(value.length).put(value);
            i++;
        }
        return out.array();
    }

    /**
     * Decode a record, or the requested fields of it.
     *
     * @param record the record's bytes (as {@link #encode} wrote them).
     * @param wanted the fields to return; {@code null} for all of them. A wanted field the record lacks is left out.
     * @param result where the fields go (name to value), in the record's order; values are copies.
     * @throws IllegalArgumentException when the bytes are not a well-formed record (truncated, a length beyond the
     *                                  end, trailing bytes, a repeated field name); the message says where.
     */
    public static void decode(final byte[] record, final Set<String> wanted, final Map<String, ByteIterator> result)
    {
        final Map<String, byte[]> raw = decodeBytes(record, wanted);
        for (final Map.Entry<String, byte[]> e : raw.entrySet())
        {
            result.put(e.getKey(), new ByteArrayByteIterator(e.getValue()));
        }
    }

    /**
     * Decode a record, or the requested fields of it, as bytes.
     *
     * @param record the record's bytes.
     * @param wanted the fields to return; {@code null} for all.
     * @return name to value in the record's order (values are copies).
     * @throws IllegalArgumentException when the bytes are not a well-formed record.
     */
    public static Map<String, byte[]> decodeBytes(final byte[] record, final Set<String> wanted)
    {
        if (record == null)
        {
            throw new IllegalArgumentException("malformed record: null");
        }
        final ByteBuffer in = ByteBuffer.wrap(record);
        final int count = u16(in, "field count");
        final Map<String, byte[]> fields = new LinkedHashMap<>(Math.min(count, 64) * 2);
        final Set<String> seen = new HashSet<>(Math.min(count, 64) * 2);
        for (int i = 0; i < count; i++)
        {
            final int at = in.position();
            final int nameLength = u16(in, "name length of field " + i);
            final String name = new String(bytes(in, nameLength, "name of field " + i), StandardCharsets.UTF_8);
            if (!seen.add(name))
            {
                throw malformed("field '" + name + "' repeated at byte " + at, record.length);
            }
            final int valueLength = u32(in, "value length of field " + i);
            if (wanted == null || wanted.contains(name))
            {
                fields.put(name, bytes(in, valueLength, "value of field " + i));
            }
            else
            {
                skip(in, valueLength, "value of field " + i);
            }
        }
        if (in.hasRemaining())
        {
            throw malformed(in.remaining() + " bytes after the last of " + count + " fields", record.length);
        }
        return fields;
    }

    /**
     * A stored record with some fields replaced or added: what an update writes.
     *
     * @param stored  the stored record's bytes; {@code null} when there is none (the update then writes
     *                {@code updates} alone).
     * @param updates the fields to write.
     * @return the merged record: the stored fields in their order with updated values, then the new fields.
     * @throws IllegalArgumentException when {@code stored} is malformed.
     */
    public static byte[] merge(final byte[] stored, final Map<String, ByteIterator> updates)
    {
        final Map<String, byte[]> fields = stored == null ? new LinkedHashMap<>() : decodeBytes(stored, null);
        for (final Map.Entry<String, ByteIterator> e : updates.entrySet())
        {
            fields.put(e.getKey(), e.getValue().toArray());
        }
        return encodeBytes(fields);
    }

    private static int u16(final ByteBuffer in, final String what)
    {
        if (in.remaining() < 2)
        {
            throw truncated(in, 2, what);
        }
        return in.getShort() & 0xFFFF;
    }

    private static int u32(final ByteBuffer in, final String what)
    {
        if (in.remaining() < 4)
        {
            throw truncated(in, 4, what);
        }
        final int v = in.getInt();
        if (v < 0)
        {
            throw malformed(what + " is " + Integer.toUnsignedString(v) + " at byte " + (in.position() - 4),
                in.capacity());
        }
        return v;
    }

    private static byte[] bytes(final ByteBuffer in, final int length, final String what)
    {
        if (in.remaining() < length)
        {
            throw truncated(in, length, what);
        }
        final byte[] b = new byte[length];
        in.get(b);
        return b;
    }

    private static void skip(final ByteBuffer in, final int length, final String what)
    {
        if (in.remaining() < length)
        {
            throw truncated(in, length, what);
        }
        in.position(in.position() + length);
    }

    private static IllegalArgumentException truncated(final ByteBuffer in, final int needed, final String what)
    {
        return malformed(what + " needs " + needed + " bytes at byte " + in.position() + ", " + in.remaining() +
            " left", in.capacity());
    }

    private static IllegalArgumentException malformed(final String detail, final int length)
    {
        return new IllegalArgumentException("malformed record (" + length + " bytes): " + detail);
    }
}
